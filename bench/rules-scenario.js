/**
 * Writes a scenario of `count` rules none of which matches a benchmark request, cycling through
 * method, skill, exact header and body JSON Pointer conditions (the pattern of
 * scenarios/rules-1000.yaml). Used for the load-time case with 10,000 rules.
 */
import { writeFile } from 'node:fs/promises';

export async function writeNonMatchingRules(file, count) {
  const lines = [`scenario: bench-rules-${count}`, `description: ${count} rules that never match.`, 'rules:'];
  for (let i = 0; i < count; i++) {
    lines.push(`  - id: never-${i}`);
    if (i % 4 === 0) lines.push(`    match: { method: NoSuchMethod${i} }`);
    else if (i % 4 === 1) lines.push(`    match: { skill: no.such.skill${i} }`);
    else if (i % 4 === 2) lines.push(`    match: { headers: { x-bench-lane: lane-${i} } }`);
    else lines.push('    match:', `      body: [{ pointer: /params/message/parts/0/data/filters/make/0, equals: Make${i} }]`);
    lines.push('    error: INTERNAL_ERROR');
  }
  await writeFile(file, `${lines.join('\n')}\n`);
}
