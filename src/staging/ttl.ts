/**
 * Times to live of runtime changes: a scenario loaded with `?ttl=` or a rule switched with one
 * goes back by itself when its time runs out. This file keeps the timers and what /status shows
 * of them; what "going back" means is the caller's. Reading a TTL's text is `ttlMs` in
 * `src/options.ts`, beside the other value parsers, since `--max-ttl` reads it too.
 */

export interface TtlStatus {
  /** `scenario` or `rule:ID`. */
  target: string;
  expires_at: string;
  remaining_s: number;
  /** What comes back: a scenario name, `pass-through`, `enabled` or `disabled`. */
  reverts_to: string;
}

interface Pending {
  expiresAt: number;
  revertsTo: string;
  timer: NodeJS.Timeout;
}

/** setTimeout's longest delay; a longer TTL is re-armed when it is reached. */
const MAX_TIMER_MS = 2_147_483_647;

export class TtlTimers {
  private readonly pending = new Map<string, Pending>();

  /** Runs `onExpire` at `expiresAt` (ms since the epoch), replacing any timer on the same target. */
  arm(target: string, expiresAt: number, revertsTo: string, onExpire: () => void): void {
    this.disarm(target);
    const schedule = (): NodeJS.Timeout =>
      setTimeout(
        () => {
          if (Date.now() < expiresAt) {
            entry.timer = schedule();
            return;
          }
          this.pending.delete(target);
          onExpire();
        },
        Math.min(Math.max(0, expiresAt - Date.now()), MAX_TIMER_MS),
      ).unref();
    const entry: Pending = { expiresAt, revertsTo, timer: undefined as unknown as NodeJS.Timeout };
    entry.timer = schedule();
    this.pending.set(target, entry);
  }

  disarm(target: string): void {
    const p = this.pending.get(target);
    if (p) clearTimeout(p.timer);
    this.pending.delete(target);
  }

  /** Every rule timer (a new scenario makes them meaningless). */
  disarmRules(): void {
    for (const target of [...this.pending.keys()]) if (target.startsWith('rule:')) this.disarm(target);
  }

  has(target: string): boolean {
    return this.pending.has(target);
  }

  list(now = Date.now()): TtlStatus[] {
    return [...this.pending].map(([target, p]) => ({
      target,
      expires_at: new Date(p.expiresAt).toISOString(),
      remaining_s: Math.max(0, Math.ceil((p.expiresAt - now) / 1000)),
      reverts_to: p.revertsTo,
    }));
  }

  close(): void {
    for (const target of [...this.pending.keys()]) this.disarm(target);
  }
}

/** Checks a requested TTL against --max-ttl: with a cap, a change without a TTL gets the cap, and a longer one is refused. */
export function effectiveTtl(requestedMs: number | undefined, maxTtlMs: number | undefined): number | undefined {
  if (requestedMs !== undefined && !(Number.isFinite(requestedMs) && requestedMs > 0))
    throw new TtlRefusedError(`ttl ${String(requestedMs)} is not a number of milliseconds above zero`);
  if (maxTtlMs === undefined) return requestedMs;
  if (requestedMs === undefined) return maxTtlMs;
  if (requestedMs > maxTtlMs) throw new TtlRefusedError(`ttl ${formatMs(requestedMs)} is longer than --max-ttl ${formatMs(maxTtlMs)}`);
  return requestedMs;
}

/** A TTL that cannot be used: not above zero, or longer than --max-ttl. */
export class TtlRefusedError extends Error {
  override name = 'TtlRefusedError';
}

export function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
