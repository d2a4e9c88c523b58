// `aap-chaos exam --card-trust` with real @a2a-js/sdk buyers: the buyer gets AAP_CARD_JWKS_URL,
// card-forgery serves a tampered card, then an unsigned one, then valid signed cards. A buyer that
// verifies (and fetches again until a card verifies) PASSes card-trust; one that calls a skill on
// the forged card FAILs. Without --card-trust the check is neither shown nor required.
import t from 'tap';
import { exam, fixture, type ExamJson } from '../helpers/exam.js';

// Buyer processes on a shared, slow machine.
t.setTimeout(240_000);

const buyer = (mode: 'verify' | 'trust') => ['--', process.execPath, fixture('card-buyer.mjs'), mode];

t.test('a buyer that verifies cards PASSes card-trust', async (t) => {
  const run = await exam(['--card-trust', '--scenarios', 'card-forgery', '--allow-incomplete', '--json', ...buyer('verify')]);
  const card = JSON.parse(run.out) as ExamJson;
  t.equal(card.battery['card-trust'], 'PASS', run.err);
  t.ok(card.required.includes('card-trust'), 'required with --card-trust');
  const said = card.scenarios[0]!.runs[0]!.buyer.stdout;
  t.match(said, /card 1 refused: No valid signatures found on agent card/, 'the tampered card was refused');
  t.match(said, /card 2 refused: No signatures found on agent card/, 'the unsigned card was refused');
  t.match(said, /searched on card 3/, 'the first card that verifies was used');
  t.equal(run.code, 0);
});

t.test('a buyer that trusts any card FAILs card-trust, exit 1', async (t) => {
  const run = await exam(['--card-trust', '--scenarios', 'card-forgery', '--allow-incomplete', '--json', ...buyer('trust')]);
  const card = JSON.parse(run.out) as ExamJson;
  t.equal(card.battery['card-trust'], 'FAIL');
  t.equal(run.code, 1);
});

t.test('without --card-trust the check is not graded and not required', async (t) => {
  const run = await exam(['--scenarios', 'card-forgery', '--allow-incomplete', '--json', ...buyer('trust')]);
  const card = JSON.parse(run.out) as ExamJson;
  t.notOk('card-trust' in card.battery, 'no card-trust column');
  t.notOk(card.required.includes('card-trust'));
  t.equal(run.code, 0);
});
