// `aap-chaos/buyer` is a package export with its types, and it stays a client-side module: from
// its entry, in the sources and in the build, imports reach only src/buyer/ and the protocol
// tables (src/protocol/codes.ts) — no Node-only module, no npm package, nothing of the server.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** Every file reachable from `entry` by relative imports, and every other specifier met on the way. */
function reach(entry: string, toFile: (specifier: string, from: string) => string): { files: string[]; bare: string[] } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of withoutComments(readFileSync(file, 'utf8')).matchAll(IMPORT)) {
      const specifier = m[2]!;
      if (specifier.startsWith('.')) visit(toFile(specifier, file));
      else bare.add(specifier);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(ROOT, f)).sort(), bare: [...bare].sort() };
}

t.test('package.json exports ./buyer with types, and both files are built', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }> };
  const entry = pkg.exports['./buyer'];
  t.same(entry, { types: './dist/buyer/index.d.ts', import: './dist/buyer/index.js' });
  t.ok(existsSync(path.join(ROOT, entry!.types)) && existsSync(path.join(ROOT, entry!.import)), 'built by npm run build');
  const types = readFileSync(path.join(ROOT, entry!.types), 'utf8');
  for (const name of ['readAapError', 'aapFetch', 'retryPolicy', 'AapErrorReading', 'RetryDecision']) t.match(types, name, `the types name ${name}`);
});

t.test('import("aap-chaos/buyer") resolves to the build and works', async (t) => {
  const buyer = (await import('aap-chaos/buyer')) as typeof import('../../src/buyer/index.js');
  t.same(Object.keys(buyer).sort(), ['AAP_EXTENSION_URI_1_3', 'AAP_EXTENSION_URI_2_0_DRAFT', 'aapFetch', 'readAapError', 'retryPolicy']);
  t.match(buyer.readAapError({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }), {
    kind: 'a2a',
    jsonRpcCode: -32603,
    code: undefined,
    retryable: false,
  });
});

t.test('the sources reach only src/buyer/ and src/protocol/codes.ts', async (t) => {
  const { files, bare } = reach(path.join(ROOT, 'src/buyer/index.ts'), (s, from) => path.resolve(path.dirname(from), s).replace(/\.js$/, '.ts'));
  t.same(
    files.filter((f) => !f.startsWith('src/buyer/')),
    ['src/protocol/codes.ts'],
  );
  t.same(bare, [], 'no npm package and no node: module');
});

t.test('so does the build', async (t) => {
  const { files, bare } = reach(path.join(ROOT, 'dist/buyer/index.js'), (s, from) => path.resolve(path.dirname(from), s));
  t.same(
    files.filter((f) => !f.startsWith('dist/buyer/')),
    ['dist/protocol/codes.js'],
  );
  t.same(bare, []);
});
