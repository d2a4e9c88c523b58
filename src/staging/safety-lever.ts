/**
 * The safety lever: one stop for every fault on every replica. Pulled (by `PUT /safety-lever`,
 * `ctl stop-all`, the dashboard's "Stop all faults" button, or a guardrail breach), every replica
 * sharing the store goes to dry run — rules are still decided and journaled, nothing is injected —
 * and refuses new scenarios and rule switches until it is released. Without a shared store it
 * acts on this process alone.
 */
import type { SharedStaging } from './shared.js';

export interface LeverState {
  pulled: boolean;
  /** Why, as the person (or guardrail) pulling it said. */
  reason?: string;
  /** Who: the name given, else the admin client's address and token fingerprint. */
  by?: string;
  /** `guardrail <name>` when a guardrail pulled it. */
  halted_by?: string;
  /** When, RFC 3339. */
  at?: string;
  /** The replica it was pulled on. */
  replica?: string;
}

export class SafetyLever {
  private current: LeverState = { pulled: false };
  /** Counts the moves made here, so a read of the store sent before one can be told apart. */
  private moves = 0;

  /** `apply` is told each time the lever's position changes here (pulled → dry run forced). */
  constructor(
    private readonly apply: (state: LeverState) => void,
    private readonly shared?: SharedStaging,
  ) {}

  get state(): LeverState {
    return this.current;
  }

  /** Reads the fleet's lever and follows it; a no-op without a shared store. */
  async start(): Promise<void> {
    if (!this.shared) return;
    await this.refresh();
  }

  /** Reads the fleet's lever again (after an announcement, or a reconnection). */
  async refresh(): Promise<void> {
    const movesBefore = this.moves;
    const state = await this.shared?.readLever<LeverState>().catch(() => undefined);
    // A move made here while the read was on its way is newer than what the read found (two
    // replicas breaching at once); the move's own announcement brings a read that includes it.
    if (state && this.moves === movesBefore) this.set(state);
  }

  /** Pulls (or releases) it here at once, then for the fleet; rejects when the store does not answer. */
  async move(state: LeverState): Promise<void> {
    this.moves++;
    this.set(state);
    await this.shared?.writeLever(state);
  }

  /** Why a new scenario or rule switch is refused now, or undefined when the lever is released. */
  refusal(what: string): string | undefined {
    const s = this.current;
    if (!s.pulled) return undefined;
    return `${what} refused: the safety lever is pulled${s.halted_by ? ` (halted by ${s.halted_by})` : ''}${s.by ? ` by ${s.by}` : ''}${s.reason ? `: ${s.reason}` : ''}; release it first (DELETE /safety-lever, or ctl release)`;
  }

  private set(state: LeverState): void {
    const changed = state.pulled !== this.current.pulled || state.at !== this.current.at;
    this.current = state;
    if (changed) this.apply(state);
  }
}
