/**
 * Runs zoo members through the exam's default battery in one process: one proxy (with its embedded
 * mock dealer) per battery scenario, started through the library API exactly as the exam starts
 * each run, and every member in a session of its own on each (`x-aap-chaos-session`), all at once.
 * Each member's runs are graded as the exam grades them (gradeRun, then the untidy twin).
 */
import { startChaos, type Chaos } from '../../src/index.js';
import { DEFAULT_BATTERY, loadBattery, type BatteryScenario } from '../../src/exam/battery.js';
import { gradeUntidyTwins, withUntidyTwins } from '../../src/exam/differential.js';
import { gradeRun, type ExamRun } from '../../src/exam/scorecard.js';
import type { Scenario } from '../../src/scenario/load.js';
import { Inventory } from '../../src/mock/inventory.js';
import { ZooBuyer } from './buyer.js';
import type { Member } from './members.js';

export interface ZooRun extends ExamRun {
  /** By JSON-RPC id: when the member sent each request and read its reply, on its own clock. */
  clock: Map<string, { sentAt: number; readAt?: number }>;
}

export interface ZooRuns {
  battery: BatteryScenario[];
  /** Per member id, its graded run of each battery scenario. */
  runs: Map<string, ZooRun[]>;
}

/** The battery, each scenario changed by `alter` when given (a metamorphic test's transformation). */
export async function zooBattery(alter?: (s: Scenario) => Scenario): Promise<BatteryScenario[]> {
  const loaded = await loadBattery([...DEFAULT_BATTERY]);
  return withUntidyTwins(alter ? loaded.map((b) => ({ ...b, scenario: alter(b.scenario) })) : loaded);
}

/** Counts each session's JSON-RPC journal lines as they finish, so a member's run can wait for all of its own. */
class SessionLines {
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Map<string, { count: number; resolve: () => void }>();

  constructor(chaos: Chaos) {
    chaos.events.on('request', (line) => {
      if (line.method === undefined || line.session === undefined) return;
      const count = (this.counts.get(line.session) ?? 0) + 1;
      this.counts.set(line.session, count);
      const waiter = this.waiting.get(line.session);
      if (waiter !== undefined && count >= waiter.count) {
        this.waiting.delete(line.session);
        waiter.resolve();
      }
    });
  }

  /** Resolves once `count` lines of `session` are journaled. */
  reach(session: string, count: number): Promise<void> {
    if ((this.counts.get(session) ?? 0) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(session, { count, resolve }));
  }
}

export async function runZoo(members: readonly Member[], battery?: BatteryScenario[]): Promise<ZooRuns> {
  const scenarios = battery ?? (await zooBattery());
  const inventory = Inventory.fromSeed();
  const available = inventory.vehicles.filter((v) => v.status === 'available');
  const goodVins = [available[0]!.vin, available[1]!.vin] as const;
  const soldVin = inventory.firstSold().vin;
  const runs = new Map<string, ZooRun[]>(members.map((m) => [m.id, []]));
  // rate-limit-storm first: its runs mostly wait out ten-second hints, so they overlap everything else.
  const order = [...scenarios].sort((a, b) => Number(b.name === 'rate-limit-storm') - Number(a.name === 'rate-limit-storm'));
  await Promise.all(
    order.map(async (b) => {
      const seed = b.scenario.seed ?? 1;
      const chaos = await startChaos({ scenario: b.scenario, seed, state: 'memory' });
      const lines = new SessionLines(chaos);
      try {
        await Promise.all(
          members.map(async (m) => {
            let sent = 0;
            const started = Date.now();
            const clock = new Map<string, { sentAt: number; readAt?: number }>();
            await new ZooBuyer(m, { url: chaos.url, session: m.id, goodVins, soldVin, onSend: () => sent++, clock }).shop();
            await lines.reach(m.id, sent);
            const buyer = { exitCode: 0, signal: null, timedOut: false, durationMs: Date.now() - started, stdout: '', stderr: '' };
            const journal = chaos.journal({ session: m.id });
            runs.get(m.id)!.push({ ...gradeRun(b.name, seed, 0, buyer, chaos.report({ session: m.id }), journal, false), clock });
          }),
        );
      } finally {
        await chaos.close();
      }
    }),
  );
  for (const own of runs.values()) gradeUntidyTwins(scenarios, own);
  return { battery: scenarios, runs };
}
