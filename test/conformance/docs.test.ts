// docs/conformance.md lists every rule with the sentence the module holds, so the two cannot drift.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { CONFORMANCE_RULES } from '../../src/protocol/conformance/index.js';

const doc = await readFile(new URL('../../docs/conformance.md', import.meta.url), 'utf8');

for (const rule of CONFORMANCE_RULES) {
  t.test(rule.id, async (t) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${rule.id}\` |`));
    t.ok(row, 'has a row');
    t.ok(row?.includes(`| ${rule.severity} |`), 'with its severity');
    t.ok(row?.includes(rule.rule.replace(/\|/g, '\\|')), 'with its sentence');
  });
}

t.test('ids are unique and stable in form', async (t) => {
  const ids = CONFORMANCE_RULES.map((r) => r.id);
  t.equal(new Set(ids).size, ids.length);
  t.ok(ids.every((id) => /^AAP-(CARD|RPC|OK|ERR|HDR|SSE)-\d{3}$/.test(id)));
});
