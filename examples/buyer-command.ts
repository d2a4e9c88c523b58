/**
 * The reference buyers as a command, the shape `aap-chaos exam` runs any buyer in: it reads the
 * dealer's URL from AAP_DEALER_URL, makes the shopping trip, prints one line per call and exits 0.
 *
 *   aap-chaos exam -- node --import tsx examples/buyer-command.ts resilient
 *
 * (Any TypeScript runner will do; this repository's tests use tap's loader.)
 */
import { runNaiveBuyer } from './naive-buyer.js';
import { runResilientBuyer } from './resilient-buyer.js';
import { examplePlan } from './example-plan.js';

const kind = process.argv[2];
const url = process.env.AAP_DEALER_URL;
if ((kind !== 'resilient' && kind !== 'naive') || !url) {
  process.stderr.write('usage: AAP_DEALER_URL=http://… buyer-command.ts resilient|naive\n');
  process.exit(2);
}
const outcomes = kind === 'resilient' ? await runResilientBuyer(url, examplePlan) : await runNaiveBuyer(url, examplePlan);
for (const o of outcomes) process.stdout.write(`${o.skill}: ${o.ok ? 'ok' : `failed (${o.reason})`}\n`);
