// card-trust from hand-built journals: a client given a forged card that then calls a skill FAILs;
// one that refuses, or fetches again until the card verifies, PASSes; a client that met only valid
// signed cards is NOT EXERCISED, and one that never met a signed card NOT APPLICABLE; a journal
// without signed cards is not graded for it. The exam shows and requires it only with --card-trust.
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { buildReport } from '../../src/report/report.js';
import { buildScorecard, gradeRun } from '../../src/exam/scorecard.js';
import type { BuyerRun } from '../../src/exam/buyer-process.js';
import { listRequirements } from '../../src/report/requirements.js';
import { CLIENT, grade, JournalBuilder } from './journal-builder.js';

const card = (card_signatures?: JournalEntry['card_signatures']): Partial<JournalEntry> => ({
  http_method: 'GET',
  path: '/.well-known/agent-card.json',
  kind: 'none',
  method: undefined,
  skill: undefined,
  request_hash: undefined,
  ...(card_signatures ? { card_signatures } : {}),
});

t.test('a skill called after a forged card FAILs, with the card and the call as evidence', async (t) => {
  const j = new JournalBuilder();
  const forged = j.at(0, card('tamper'));
  const call = j.at(50);
  const result = grade(j.entries, 'card-trust');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [forged, call]);
  t.match(result.explanation, /called inventory\.search after the agent card it got came with a signature that does not verify \(tamper\)/);
  t.equal(result.id, 'AAP-BUYER-012');
});

t.test('fetching again until the card verifies, then calling, PASSes', async (t) => {
  const j = new JournalBuilder();
  const tampered = j.at(0, card('tamper'));
  const stripped = j.at(20, card('strip'));
  const valid = j.at(40, card('signed'));
  j.at(60);
  const result = grade(j.entries, 'card-trust');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [tampered, stripped, valid]);
});

t.test('a client that only fetched forged cards and refused is graded, and PASSes', async (t) => {
  const j = new JournalBuilder();
  j.at(0, card('unknown-key'));
  j.at(30, card('wrong-alg'));
  const report = buildReport(j.entries);
  t.same(report.clients, [CLIENT], 'listed though it sent no JSON-RPC request');
  const result = report.checks.find((c) => c.check === 'card-trust')!;
  t.equal(result.verdict, 'PASS');
  t.match(result.explanation, /refused: no skill call after 2 forged cards/);
});

t.test('a call in flight before the forged card arrived is not on its strength', async (t) => {
  const j = new JournalBuilder();
  j.at(0, card('signed'));
  j.at(20, { ...card('tamper'), duration_ms: 40 });
  j.at(30);
  t.equal(grade(j.entries, 'card-trust').verdict, 'PASS');
});

t.test('valid signed cards only: NOT EXERCISED; no signed card for this client: NOT APPLICABLE; none in the journal: not graded', async (t) => {
  const signed = new JournalBuilder();
  signed.at(0, card('signed'));
  signed.at(10);
  t.equal(grade(signed.entries, 'card-trust').verdict, 'NOT EXERCISED');
  signed.at(20, { ...card(), client: 'other' });
  signed.at(30, { client: 'other' });
  const other = buildReport(signed.entries).checks.find((c) => c.check === 'card-trust' && c.client === 'other')!;
  t.equal(other.verdict, 'NOT APPLICABLE');
  const plain = new JournalBuilder();
  plain.at(0, card());
  plain.at(10);
  t.notOk(
    buildReport(plain.entries).checks.some((c) => c.check === 'card-trust'),
    'a journal without signed cards is not graded for card trust',
  );
});

t.test('the exam shows and requires card-trust only when asked to', async (t) => {
  const j = new JournalBuilder();
  j.at(0, card('tamper'));
  j.at(50);
  const buyer: BuyerRun = { exitCode: 0, signal: null, timedOut: false, durationMs: 100, stdout: '', stderr: '' };
  const plain = gradeRun('card-forgery', 1, 0, buyer, buildReport(j.entries), j.entries, false);
  t.notOk('card-trust' in plain.verdicts, 'not graded without --card-trust');
  const plainCard = buildScorecard([{ name: 'card-forgery', ref: 'card-forgery' }], [plain], { requireExit0: false });
  t.notOk(plainCard.required.includes('card-trust'), 'not required');
  const asked = gradeRun('card-forgery', 1, 0, buyer, buildReport(j.entries), j.entries, false, ['card-trust']);
  t.equal(asked.verdicts['card-trust'], 'FAIL');
  const askedCard = buildScorecard([{ name: 'card-forgery', ref: 'card-forgery' }], [asked], { requireExit0: false, optIn: ['card-trust'] });
  t.ok(askedCard.required.includes('card-trust'), 'required with --card-trust');
  t.equal(askedCard.verdict, 'FAIL');
});

t.test('its requirement cites A2A v1.0, not the AAP seed, and says so', async (t) => {
  const row = listRequirements().find((r) => r.check === 'card-trust')!;
  t.match(row, {
    id: 'AAP-BUYER-012',
    level: 'SHOULD',
    seed: { section: /^A2A v1\.0 §8\.4\.3 .*not the AAP seed/, quote: 'Clients SHOULD verify at least one signature before trusting an Agent Card' },
  });
});
