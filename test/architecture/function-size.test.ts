// The two functions everything starts from stay short enough to read top to bottom: startRuntime
// (each step of a run is a function of its own under src/runtime/) and the CLI's main (each
// command is a module of its own under src/commands/).
import t from 'tap';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX_BODY_LINES = 80;

/** Lines between the opening and the closing brace of the named top-level function's body. */
export function bodyLines(source: string, name: string): number {
  const file = ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, true);
  const fn = file.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name);
  if (!fn?.body) throw new Error(`no function ${name}`);
  const line = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  return line(fn.body.getEnd()) - line(fn.body.getStart()) - 1;
}

t.test('the count is of the lines inside the braces', async (t) => {
  t.equal(bodyLines('function f() {\n  a();\n  b();\n}\n', 'f'), 2);
  t.equal(bodyLines(`export async function long(x: number): Promise<void> {\n${'  x++;\n'.repeat(120)}}\n`, 'long'), 120);
  t.throws(() => bodyLines('const g = () => {};', 'g'), /no function g/);
});

for (const [file, name] of [
  ['src/runtime.ts', 'startRuntime'],
  ['src/cli.ts', 'main'],
] as const) {
  t.test(`${name} (${file}) has fewer than ${MAX_BODY_LINES} lines`, async (t) => {
    const lines = bodyLines(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), name);
    t.ok(lines < MAX_BODY_LINES, `${name}: ${lines} lines`);
  });
}
