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
import { dealerUrlsFromEnv, runResilientFanOut, runSerialFanOut } from './fan-out.js';

const kind = process.argv[2];
const url = process.env.AAP_DEALER_URL;
// With several dealers (AAP_DEALER_URLS), the resilient buyer fans out; "serial" is its flawed twin.
const dealers = dealerUrlsFromEnv();
if (!['resilient', 'naive', 'serial'].includes(kind ?? '') || !url || (kind === 'serial' && !dealers)) {
  process.stderr.write(
    'usage: AAP_DEALER_URL=http://… buyer-command.ts resilient|naive, or AAP_DEALER_URLS=http://…,http://… buyer-command.ts resilient|serial\n',
  );
  process.exit(2);
}
const budgetMs = process.env.AAP_BUYER_BUDGET_MS === undefined ? undefined : Number(process.env.AAP_BUYER_BUDGET_MS);
if (dealers && kind !== 'naive') {
  const results = kind === 'resilient' ? await runResilientFanOut(dealers, examplePlan, { budgetMs }) : await runSerialFanOut(dealers, examplePlan);
  for (const r of results) for (const o of r.outcomes) process.stdout.write(`${r.url} ${o.skill}: ${o.ok ? 'ok' : `failed (${o.reason})`}\n`);
  // Calls still out at the budget are abandoned, not awaited.
  process.exit(0);
}
const outcomes = kind === 'resilient' ? await runResilientBuyer(url, examplePlan) : await runNaiveBuyer(url, examplePlan);
for (const o of outcomes) process.stdout.write(`${o.skill}: ${o.ok ? 'ok' : `failed (${o.reason})`}\n`);
