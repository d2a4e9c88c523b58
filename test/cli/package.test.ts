// What an installed package holds: the LICENSE, the mock dealer as `aap-chaos/mock` (typed), the
// files README and docs link to, and a --version that is aap-chaos's own, not the host project's.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };

async function packedFiles(): Promise<string[]> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

t.test('the package ships the MIT LICENSE package.json names, and the typed mock entry point', async (t) => {
  const files = await packedFiles();
  t.equal(pkg.license, 'MIT');
  t.ok(files.includes('LICENSE'), 'LICENSE is packed');
  t.match(readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'), /^MIT License/);
  for (const f of ['dist/mock/index.js', 'dist/mock/index.d.ts', 'dist/index.d.ts']) t.ok(files.includes(f), `${f} is packed`);
});

t.test('every relative link in README and docs points at a file the package holds', async (t) => {
  const files = new Set(await packedFiles());
  const docs = ['README.md', ...[...files].filter((f) => f.startsWith('docs/') && f.endsWith('.md'))];
  t.ok(docs.length > 3);
  for (const doc of docs) {
    const text = readFileSync(path.join(ROOT, doc), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target!)).replace(/\/$/, '');
      const present = files.has(resolved) || [...files].some((f) => f.startsWith(`${resolved}/`));
      t.ok(present, `${doc} → ${target} is in the package`);
    }
  }
});

t.test("import { startMockDealer } from 'aap-chaos/mock' works as docs/mock-dealer.md says", async (t) => {
  const { startMockDealer } = (await import('aap-chaos/mock' as string)) as typeof import('../../src/mock/index.js');
  const mock = await startMockDealer({ port: 0, profile: '2.0', streaming: true, seed: 7 });
  t.teardown(() => mock.close());
  const card = (await (await fetch(`${mock.url}/.well-known/agent-card.json`)).json()) as { name?: string };
  t.type(card.name, 'string');
  t.type(mock.dealer.inventory.firstSold().vin, 'string');
});

t.test("--version prints aap-chaos's own version, even inside another project", async (t) => {
  const host = tempDir(t, 'aap-chaos-host-');
  writeFileSync(path.join(host, 'package.json'), JSON.stringify({ name: 'host-project', version: '9.9.9' }));
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/aap-chaos.js'), '--version'], { cwd: host });
  t.equal(stdout.trim(), pkg.version);
});
