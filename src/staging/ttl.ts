/**
 * Times to live of runtime changes: a scenario loaded with `?ttl=` or a rule switched with one
 * goes back by itself when its time runs out. This file keeps the timers and what /status shows
 * of them; what "going back" means is the caller's. Reading a TTL's text is `ttlMs` in
 * `src/options.ts`, beside the other value parsers, since `--max-ttl` reads it too.
 */
import { MAX_TTL_MS, ttlMs } from '../option-values.js';
import type { SharedTtl } from './shared.js';

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

/**
 * Checks a requested TTL (the library's number, already read from text elsewhere) against the
 * bounds of every TTL and against --max-ttl: with a cap, a change without a TTL gets the cap, and
 * a longer one is refused.
 */
export function effectiveTtl(requestedMs: number | undefined, maxTtlMs: number | undefined): number | undefined {
  let requested: number | undefined;
  if (requestedMs !== undefined) {
    try {
      requested = ttlMs(requestedMs);
    } catch (e) {
      throw new TtlRefusedError(`ttl ${String(requestedMs).slice(0, 40)} ${(e as Error).message}`);
    }
  }
  if (maxTtlMs === undefined) return requested;
  if (requested === undefined) return maxTtlMs;
  if (requested > maxTtlMs) throw new TtlRefusedError(`ttl ${formatMs(requested)} is longer than --max-ttl ${formatMs(maxTtlMs)}`);
  return requested;
}

/** How far another replica's clock may be ahead of this one's. */
const CLOCK_SKEW_MS = 60_000;

export type CheckedSharedTtl = { ok: true; ttl: SharedTtl; revertsTo: string } | { ok: false; problem: string };

/**
 * The scenario's TTL as read back from Redis, checked before anything is armed from it: whoever
 * reaches Redis wrote it, and a replica must not be wedged by it (an expiry past the Date range
 * once made /status answer 500 on every replica; a `previous` that is not JSON ended the process).
 */
export function checkSharedTtl(raw: unknown, now = Date.now()): CheckedSharedTtl {
  const refused = (problem: string): CheckedSharedTtl => ({ ok: false, problem });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return refused('it is not a JSON object');
  const { version, expires_at, previous } = raw as Record<string, unknown>;
  if (!Number.isSafeInteger(version) || (version as number) < 1) return refused('its version is not a whole number ≥ 1');
  if (typeof expires_at !== 'number' || !(expires_at >= 0 && expires_at <= now + MAX_TTL_MS + CLOCK_SKEW_MS))
    return refused(`its expires_at is not a time within ${formatMs(MAX_TTL_MS)} from now`);
  if (typeof previous !== 'string') return refused('its previous scenario is not JSON text');
  let before: unknown;
  try {
    before = JSON.parse(previous);
  } catch {
    return refused('its previous scenario is not JSON text');
  }
  if (typeof before !== 'object' || Array.isArray(before)) return refused('its previous scenario is neither null nor a scenario object');
  const name = (before as { scenario?: unknown } | null)?.scenario;
  const revertsTo = before === null ? 'pass-through' : typeof name === 'string' ? name.replace(/[^\x20-\x7e]/g, '?').slice(0, 100) : 'an unnamed scenario';
  return { ok: true, ttl: { version: version as number, expires_at, previous }, revertsTo };
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
