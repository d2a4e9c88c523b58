/**
 * Imports point one way: no module of src/ reaches itself again through its imports, and effects
 * never reach into the proxy (they describe reply work; the proxy carries it out). Read from the
 * TypeScript sources by hand: every static `import … from`, `export … from` and `import('…')` with
 * a relative specifier, type-only ones included (a type cycle is still a layering cycle).
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The dashboard page is a separate browser program with its own tsconfig. */
const SEPARATE = [path.join(SRC, 'dashboard', 'page')];

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (SEPARATE.includes(full)) continue;
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;

/** Strips comments, so an import written in a doc comment is not taken for one. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** The src/ files one source file imports (relative specifiers, `.js` written for `.ts`). */
export function importsOf(file: string, text: string): string[] {
  const out = new Set<string>();
  for (const m of code(text).matchAll(SPECIFIER)) {
    const target = path.resolve(path.dirname(file), m[2]!).replace(/\.js$/, '.ts');
    out.add(target);
  }
  return [...out];
}

export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8')).filter((to) => known.has(to))]));
}

/** Every cycle found by a depth-first walk, each as the chain of files that closes it. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of graph.get(file) ?? []) {
      if (state.get(to) === 'open') cycles.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

const rel = (f: string) => path.relative(SRC, f);
const graph = importGraph(sourceFiles(SRC));

t.test('the scan sees imports of every form', async (t) => {
  const file = path.join(SRC, 'a', 'x.ts');
  const text = [
    "import type { A } from '../b/y.js';",
    "import { B } from './z.js';",
    "export { C } from '../c.js';",
    "import './side.js';",
    "const m = await import('../lazy.js');",
    "// import { no } from './comment.js';",
    "/** import { no } from './doc.js'; */",
    "import { ok } from 'node:fs';",
  ].join('\n');
  t.same(importsOf(file, text).map(rel).sort(), ['a/side.ts', 'a/z.ts', 'b/y.ts', 'c.ts', 'lazy.ts']);
  t.ok(graph.size > 50, `read ${graph.size} source files`);
  t.ok(
    [...graph.values()].some((to) => to.length > 0),
    'found imports among them',
  );
});

t.test('a cycle is found, whatever its length', async (t) => {
  const g = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  t.same(cyclesOf(g), [['a', 'b', 'c', 'a']]);
  t.same(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});

t.test('no import cycle in src/', async (t) => {
  const cycles = cyclesOf(graph).map((c) => c.map(rel).join(' → '));
  t.same(cycles, [], cycles.length ? `cycles:\n${cycles.join('\n')}` : 'no cycle');
});

/**
 * Every folder and top-level file of src/, lowest first: a file may import its own layer and the
 * ones before it, never one after. docs/architecture.md lists the same order and says what each
 * holds. `report` sits above the journal it reads; a layer may be declared before it has files.
 * `buyer` (the `aap-chaos/buyer` export) has its own stricter test: protocol codes only.
 */
export const LAYERS = [
  'protocol',
  'buyer',
  'common',
  'http',
  'option-values.ts',
  'options.ts',
  'dashboard',
  'mock',
  'scenario',
  'journal',
  'recording',
  'report',
  'observe',
  'check',
  'effects',
  'engine',
  'staging',
  'state',
  'proxy',
  'control',
  'replay',
  'multi-dealer.ts',
  'runtime',
  'runtime.ts',
  'index.ts',
  'exam',
  'fleet',
  'mcp',
  'commands',
  'cli.ts',
];
const layerOf = (file: string): number => LAYERS.indexOf(rel(file).split(path.sep)[0]!);

t.test('every folder and top-level file of src/ has a declared layer', async (t) => {
  const entries = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory() || (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')));
  t.same(
    entries.map((e) => e.name).filter((name) => !LAYERS.includes(name)),
    [],
    'undeclared entries of src/',
  );
  t.same(
    LAYERS.filter((name, i) => LAYERS.indexOf(name) !== i),
    [],
    'a layer is declared once',
  );
  t.ok(
    [...graph.keys()].every((f) => layerOf(f) >= 0),
    'every scanned file falls in a layer',
  );
});

t.test('imports point down the layers', async (t) => {
  const upward = [...graph].flatMap(([from, to]) => to.filter((f) => layerOf(f) > layerOf(from)).map((f) => `${rel(from)} → ${rel(f)}`));
  t.same(upward, []);
});

t.test('an upward import is found', async (t) => {
  const from = path.join(SRC, 'mock', 'server.ts');
  const to = path.join(SRC, 'proxy', 'server.ts');
  t.ok(layerOf(to) > layerOf(from), 'the mock dealer may not import the proxy');
});

t.test('docs/architecture.md lists the layers in the same order', async (t) => {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
  const listed = [...section.matchAll(/^\| `src\/([^`/]+)\/?` \|/gm)].map((m) => m[1]);
  t.same(listed, LAYERS);
});

t.test('effects never import the proxy', async (t) => {
  const effects = path.join(SRC, 'effects') + path.sep;
  const proxy = path.join(SRC, 'proxy') + path.sep;
  const upward = [...graph]
    .filter(([from]) => from.startsWith(effects))
    .flatMap(([from, to]) => to.filter((f) => f.startsWith(proxy)).map((f) => `${rel(from)} → ${rel(f)}`));
  t.same(upward, []);
});

t.test('staging is one layer: below the admin API that serves its routes, above the journal it watches', async (t) => {
  const staging = path.join(SRC, 'staging') + path.sep;
  const files = [...graph.keys()].filter((f) => f.startsWith(staging)).map(rel);
  for (const name of ['safety-lever.ts', 'ttl.ts', 'audit.ts', 'guardrails.ts', 'controls.ts', 'routes.ts'])
    t.ok(files.includes(path.join('staging', name)), `src/staging/${name}`);
  t.ok(layerOf(path.join(SRC, 'staging', 'routes.ts')) < layerOf(path.join(SRC, 'control', 'admin.ts')), 'the admin API may import the routes');
  const journal = path.join(SRC, 'journal') + path.sep;
  const intoStaging = [...graph]
    .filter(([from]) => from.startsWith(journal))
    .flatMap(([from, to]) => to.filter((f) => f.startsWith(staging)).map((f) => `${rel(from)} → ${rel(f)}`));
  t.same(intoStaging, [], 'the journal knows nothing of staging');
});
