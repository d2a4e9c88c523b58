/**
 * What the staging controls ask of a store shared by a fleet: the safety lever, the time to live
 * of the scenario in force, their announcements, and the one audit chain. `src/state/` answers it
 * over Redis; without Redis there is none and the controls act on this process alone.
 */
import type { SharedAuditChain } from './audit.js';

/** The scenario's time to live as the fleet shares it. */
export interface SharedTtl {
  /** The published scenario version it applies to. */
  version: number;
  expires_at: number;
  /** The JSON of the scenario to go back to, or "null" for pass-through. */
  previous: string;
}

export type ControlTopic = 'lever' | 'ttl';

export interface SharedStaging extends SharedAuditChain {
  readLever<T>(): Promise<T | undefined>;
  writeLever(state: unknown): Promise<void>;
  /** The TTL as stored (parsed when it is JSON, else its text), unchecked: `checkSharedTtl` checks it. */
  readTtl(): Promise<unknown>;
  writeTtl(ttl: SharedTtl | undefined): Promise<void>;
  /** True for the one replica that carries out the revert of scenario version `version`. */
  claimRevert(version: number): Promise<boolean>;
  /** Calls `onChange` with what changed each time a replica announces a change. */
  subscribe(onChange: (topic: ControlTopic) => void): Promise<void>;
  close(): void;
}
