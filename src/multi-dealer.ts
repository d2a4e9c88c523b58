/**
 * Several dealers behind one run: the named dealers of `--dealer NAME=URL` and the embedded mocks of
 * `--mock-dealers N` (named m1…mN, each with its own seeded inventory, dealership name, dealer id and lead store),
 * put behind one DealerRouter. runtime.ts calls this when either option is given; a run with
 * `--target` (or neither) keeps its one proxy.
 */
import { displayUrl } from './common/display-url.js';
import { startMockDealer, type RunningMockDealer } from './mock/server.js';
import type { MockDealerOptions } from './mock/dealer.js';
import type { ListenerTimeouts } from './http/listener-limits.js';
import { OptionError } from './options.js';
import { type DealerTarget } from './option-values.js';

export interface MultiDealerOptions {
  target?: string;
  dealers?: DealerTarget[];
  mockDealers?: number;
  seed?: number;
}

/** True when the run fronts several dealers (or names its one dealer). */
export function isMultiDealer(opts: MultiDealerOptions): boolean {
  return (opts.dealers?.length ?? 0) > 0 || opts.mockDealers !== undefined;
}

/** The name of the i-th embedded mock (from 1). */
export const mockDealerName = (i: number): string => `m${i}`;

/**
 * Starts the mocks and returns every dealer to front, mocks after the named ones. A name used twice
 * (a --dealer named like a mock) and --target given too are refused before anything starts.
 */
export async function startDealers(
  opts: MultiDealerOptions,
  mock: Omit<MockDealerOptions, 'seed' | 'name' | 'dealerId'>,
  timeouts: ListenerTimeouts,
  onStarted: (mock: RunningMockDealer) => void,
): Promise<DealerTarget[]> {
  if (opts.target !== undefined)
    throw new OptionError(
      `--dealer / --mock-dealers: cannot be combined with --target ${JSON.stringify(displayUrl(opts.target))} (give that dealer a name: --dealer NAME=${displayUrl(opts.target)})`,
    );
  const named = opts.dealers ?? [];
  const count = opts.mockDealers ?? 0;
  for (let i = 1; i <= count; i++) {
    const clash = named.find((d) => d.name === mockDealerName(i));
    if (clash)
      throw new OptionError(
        `--dealer: "${clash.name}=${clash.url}" uses the name of mock dealer ${clash.name} (--mock-dealers ${count} names its mocks m1…m${count})`,
      );
  }
  const out = [...named];
  // Same seed, same dealers: mock i serves the inventory of seed + i.
  const base = opts.seed ?? 1;
  for (let i = 1; i <= count; i++) {
    const running = await startMockDealer({
      ...mock,
      seed: (base + i) >>> 0,
      name: `Mock Motors ${mockDealerName(i)}`,
      dealerId: `mock-motors-${mockDealerName(i)}`,
      port: 0,
      host: '127.0.0.1',
      timeouts,
    });
    onStarted(running);
    out.push({ name: mockDealerName(i), url: running.url });
  }
  return out;
}
