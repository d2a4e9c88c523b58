/**
 * Sessions: the one place where rule state lives, keyed by the session a request names in the
 * session header. Each session has its own per-rule and per-key counters (`times`, `after`,
 * `every`), rate-limit windows, clock for `from_s`/`until_s`, `max_active_faults` slots and seeded
 * generator — so a session behaves as if it had the proxy to itself. Requests without the header
 * share the default session. The table is bounded in count and idle time.
 */
import { boundReached } from '../common/bound-counts.js';
import { SeededRandom } from '../common/random.js';
import type { KeyCounters } from './when.js';
import { DEFAULT_SESSION } from '../journal/entry.js';

/** The session of requests that name none (the journal's word for it, shared). */
export { DEFAULT_SESSION };

/** Request header that names a session, unless configured otherwise. */
export const DEFAULT_SESSION_HEADER = 'x-aap-chaos-session';
/** Sessions kept besides the default one; the least recently used is forgotten past this. */
export const MAX_SESSIONS = 1_000;
/** A session unused this long is forgotten; its next request starts afresh. */
export const SESSION_IDLE_MS = 10 * 60_000;
/** What a session id may look like: printable ASCII without spaces, at most 128 characters. */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

export interface KeyState extends KeyCounters {
  data: Record<string, unknown>;
}

/** Everything a scenario remembers for one session. */
export interface SessionState {
  readonly id: string;
  /** Per rule id, per key. */
  readonly keys: Map<string, Map<string, KeyState>>;
  /** performance.now() when the session started (or was reset): `from_s`/`until_s` count from here. */
  startedAt: number;
  /** Faults in progress (what max_active_faults caps). */
  active: number;
  readonly random: SeededRandom;
  /** `random.next`, bound once: what `when.probability` and effects draw from. */
  readonly draw: () => number;
  lastUsed: number;
}

export interface SessionSummary {
  id: string;
  idle_ms: number;
  active_faults: number;
}

/** True when `value` may name a session. */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

export class SessionTable {
  /** Insertion order is recency order: a used session is moved to the end. */
  private readonly sessions = new Map<string, SessionState>();

  constructor(
    private readonly seed: number,
    private readonly limits: { max: number; idleMs: number } = { max: MAX_SESSIONS, idleMs: SESSION_IDLE_MS },
  ) {}

  /** The state of session `id` (the default session when undefined), created on first use. */
  get(id: string | undefined, now = performance.now()): SessionState {
    const key = id ?? DEFAULT_SESSION;
    let state = this.sessions.get(key);
    if (state && key !== DEFAULT_SESSION && now - state.lastUsed > this.limits.idleMs && state.active === 0) {
      this.sessions.delete(key);
      state = undefined;
    }
    if (!state) {
      this.evict(now);
      const random = new SeededRandom(this.seed);
      state = { id: key, keys: new Map(), startedAt: now, active: 0, random, draw: () => random.next(), lastUsed: now };
    } else {
      this.sessions.delete(key);
    }
    state.lastUsed = now;
    this.sessions.set(key, state);
    return state;
  }

  /** Forgets one session's state; false when the table has none for it. */
  reset(id: string): boolean {
    return this.sessions.delete(id);
  }

  clear(): void {
    this.sessions.clear();
  }

  list(now = performance.now()): SessionSummary[] {
    return [...this.sessions.values()].map((s) => ({ id: s.id, idle_ms: Math.round(now - s.lastUsed), active_faults: s.active }));
  }

  /** Faults in progress across every session. */
  activeFaults(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.active;
    return n;
  }

  /** Drops idle sessions, then the least recently used ones until there is room for one more. */
  private evict(now: number): void {
    for (const [id, s] of this.sessions) {
      if (id !== DEFAULT_SESSION && now - s.lastUsed > this.limits.idleMs && s.active === 0) this.sessions.delete(id);
    }
    const named = () => this.sessions.size - (this.sessions.has(DEFAULT_SESSION) ? 1 : 0);
    for (const id of this.sessions.keys()) {
      if (named() < this.limits.max) break;
      if (id === DEFAULT_SESSION) continue;
      this.sessions.delete(id);
      boundReached('sessions');
    }
  }
}
