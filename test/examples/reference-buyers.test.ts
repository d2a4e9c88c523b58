import t from 'tap';
import { startChaos } from '../../src/index.js';
import { Inventory } from '../../src/mock/inventory.js';
import { runNaiveBuyer } from '../../examples/naive-buyer.js';
import { runResilientBuyer } from '../../examples/resilient-buyer.js';
import type { ShoppingPlan } from '../../examples/shopping-trip.js';

const plan: ShoppingPlan = {
  searches: [{ make: ['Honda'] }, { make: ['Toyota'] }, { condition: ['used'] }, {}, { make: ['Ford'] }, { condition: ['new'] }, { make: ['Honda'] }],
  rememberedVin: Inventory.fromSeed().firstSold().vin,
  leads: [],
};

for (const scenario of ['rate-limit-storm', 'flaky-internal', 'activation-required', 'lead-gauntlet']) {
  for (const [name, run] of [['resilient', runResilientBuyer], ['naive', runNaiveBuyer]] as const) {
    t.test(`${name} ${scenario}`, async (t) => {
      const chaos = await startChaos({ scenario });
      t.teardown(() => chaos.close());
      const started = Date.now();
      const outcomes = await run(chaos.url, plan);
      t.comment(JSON.stringify(outcomes.map((o) => (o.ok ? o.skill : `${o.skill}:${o.reason}`))));
      t.comment(`took ${Date.now() - started} ms`);
      for (const c of chaos.report().checks) t.comment(`${c.check} ${c.verdict} ${c.explanation}`);
      t.pass();
    });
  }
}
