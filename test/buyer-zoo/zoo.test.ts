// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// The grader proven on a population: 64 generated buyers (test/buyer-zoo/members.ts), each a combination
// of how buyers handle AAP errors, through the exam's whole default battery against the real proxy
// and mock dealer, graded as the exam grades. Each member's verdict per check follows from its
// parameters (test/buyer-zoo/oracle.ts); no check may FAIL a member that did right, or PASS one that did
// not. Beside them, the metamorphic relations (test/buyer-zoo/metamorphic.ts), in the same run.
// The folder's name sorts near the start of tap's order (alphabetical), so the file's 50 s, mostly
// spent waiting out retry hints, overlap the rest of the suite instead of beginning last.
import t, { type Test } from 'tap';
import { generateMembers } from './members.js';
import { runZoo, zooBattery } from './run-zoo.js';
import { confusion, disturbance, formatConfusion } from './judge.js';
import type { ZooRun } from './run-zoo.js';
import { ZOO_CHECKS, type ZooCheck } from './oracle.js';
import { FLIPS, GOOD, INVARIANT, META_MEMBERS, UNKNOWN_ENTRY, batteryVerdicts, changed } from './metamorphic.js';

// Every run waits out real retry hints (up to 10 s) and backoffs; on a machine shared by four test
// files the whole zoo has taken up to three minutes, so the file gets well over that.
t.setTimeout(600_000);

const MEMBERS = 64;
const members = generateMembers(MEMBERS);
const started = Date.now();
// One pass over the battery for the population; then, on a quieter process (their relations are
// about timing as much as anything), one for the metamorphic buyers beside one over the battery
// whose every error gains an unknown entry, each buyer in a session of its own.
const population = runZoo(members);
const meta = population.then(() => Promise.all([runZoo(META_MEMBERS), zooBattery(UNKNOWN_ENTRY.alter).then((b) => runZoo([UNKNOWN_ENTRY.member], b))]));
const zoo = Promise.all([population, meta]).then(([pop, [relations, unknown]]) => [pop, relations, unknown] as const);
const seconds = zoo.then(() => (Date.now() - started) / 1000);

t.test(`${MEMBERS} buyers through the default battery: no false FAIL and no false PASS in any check`, async (t) => {
  const [{ runs }] = await zoo;
  const tables = confusion(members, runs);
  t.comment(`the zoo ran ${MEMBERS} members and ${META_MEMBERS.length + 1} metamorphic buyers through the battery in ${(await seconds).toFixed(1)} s`);
  t.comment(formatConfusion(tables));
  for (const [check, c] of Object.entries(tables)) {
    t.same(c.falseFail, [], `${check}: no false FAIL`);
    t.same(c.falsePass, [], `${check}: no false PASS`);
    t.same(c.wrongExercise, [], `${check}: exercised exactly where the oracle says`);
    if (c.machine.length > 0) t.comment(`${check}, decided by the machine, not judged:\n  ${c.machine.join('\n  ')}`);
    // A starved machine may take cells out of judgement (each with its proof); the zoo must still judge most.
    t.ok(c.machine.length <= c.judged, `${check}: ${c.judged} cells judged, ${c.machine.length} left to a busy machine`);
  }
  const caught = Object.values(tables).reduce((n, c) => n + (c.table.FAIL?.FAIL ?? 0), 0);
  t.ok(caught > 0, `the population holds flawed buyers, and they are caught (${caught} FAILs expected and given)`);
});

t.test('a buyer that does everything right passes every check it meets', async (t) => {
  const [, { runs }] = await zoo;
  const own = runs.get(GOOD.id)!;
  const disturbedBy = (r: ZooRun) => ZOO_CHECKS.map((c) => disturbance(r, c)).find((w) => w !== undefined);
  const disturbed = own.filter((r) => disturbedBy(r) !== undefined);
  const verdicts = batteryVerdicts(own.filter((r) => !disturbed.includes(r) || !Object.values(r.verdicts).includes('FAIL')));
  t.notOk(Object.values(verdicts).includes('FAIL'), JSON.stringify(verdicts));
  if (disturbed.length === 0) t.notOk(Object.values(verdicts).includes('NOT EXERCISED'), 'the battery exercises every check');
  else t.comment(`the good buyer: ${disturbed.map((r) => `${r.scenario}: ${disturbedBy(r)}`).join('; ')}`);
});

/**
 * The checks whose battery verdicts differ between two buyers, less those where every run that
 * differs was disturbed by the machine (proved as in the zoo: test/buyer-zoo/judge.ts), told as a comment.
 */
function differences(t: Test, name: string, a: ZooRun[], b: ZooRun[]): ZooCheck[] {
  return changed(a, b).filter((check) => {
    const differing = a.filter((r) => r.verdicts[check] !== b.find((o) => o.scenario === r.scenario)?.verdicts[check]);
    const why = differing.map((r) => disturbance(r, check) ?? disturbance(b.find((o) => o.scenario === r.scenario)!, check));
    if (why.length === 0 || why.some((w) => w === undefined)) return true;
    t.comment(`${name}: ${check} not compared: ${differing.map((r, i) => `${r.scenario}: ${why[i]}`).join('; ')}`);
    return false;
  });
}

t.test('changes that must not change any verdict', async (t) => {
  const [, { runs }, unknown] = await zoo;
  const good = runs.get(GOOD.id)!;
  const pairs = [
    ...INVARIANT.map(({ name, member }) => [name, runs.get(member.id)!] as const),
    [UNKNOWN_ENTRY.name, unknown.runs.get(UNKNOWN_ENTRY.member.id)!] as const,
  ];
  for (const [name, other] of pairs) t.same(differences(t, name, good, other), [], name);
});

t.test('changes that must flip exactly the checks about them', async (t) => {
  const [, { runs }] = await zoo;
  const good = runs.get(GOOD.id)!;
  for (const { name, member, flips } of FLIPS) {
    const other = runs.get(member.id)!;
    const differ = differences(t, name, good, other);
    // A flip that did not happen counts against the grader, unless the machine disturbed a run of either buyer.
    const quiet = (c: ZooCheck) => [...good, ...other].every((r) => disturbance(r, c) === undefined);
    const judged = flips.filter((c) => differ.includes(c) || (quiet(c) && !changed(good, other).includes(c)));
    if (judged.length < flips.length) t.comment(`${name}: ${flips.filter((c) => !judged.includes(c)).join(', ')} not judged: the machine disturbed its runs`);
    t.same(differ, judged, `${name}: ${flips.join(' and ')} change, nothing else`);
    for (const check of judged) t.equal(batteryVerdicts(other)[check], 'FAIL', `${name}: ${check} FAILs`);
  }
});
