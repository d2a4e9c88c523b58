/**
 * Finds the recorded exchange for a live request: same JSON-RPC method, same skill, same
 * canonical hash of the DataPart (or params) — ids, timestamps and `--ignore` pointers left out.
 * Several recorded matches are served in recorded order; past the last, the last is served again
 * (a dealer that keeps giving its latest answer). Without a match, the nearest recorded request
 * of the same method (same skill first) is the one with the fewest differing fields.
 */
import type { ClassifiedRequest } from '../protocol/classify.js';
import { scrubParams, scrubSkillData } from '../protocol/personal-data.js';
import { canonicalHash } from '../protocol/volatile-fields.js';
import type { RecordedExchange } from '../recording/reader.js';
import { jsonDifferences } from './json-diff.js';

export interface MatchKey {
  method: string;
  skill?: string;
  hash: string;
  /** What the hash was taken of: a skill's DataPart data, else the params. */
  subject: unknown;
}

export interface Nearest {
  exchange: RecordedExchange;
  differsAt: string[];
}

/** A live request's key: its DataPart scrubbed exactly as the recorder scrubbed the recorded one. */
export function liveKey(request: ClassifiedRequest, ignored: readonly string[]): MatchKey {
  const subject = request.skill ? scrubSkillData(request.skill, request.skillData).data : scrubParams(request.body?.params ?? null);
  return { method: request.rpcMethod ?? '', skill: request.skill, hash: canonicalHash(subject, ignored), subject };
}

function recordedKey(exchange: RecordedExchange, ignored: readonly string[]): MatchKey {
  const { request } = exchange;
  const subject = request.skill ? request.part!.data : (request.params ?? null);
  return { method: request.method, skill: request.skill, hash: canonicalHash(subject, ignored), subject };
}

const keyText = (k: { method: string; skill?: string; hash: string }) => `${k.method}\u0000${k.skill ?? ''}\u0000${k.hash}`;

export class RecordingIndex {
  private readonly byKey = new Map<string, { exchanges: RecordedExchange[]; served: number }>();
  private readonly all: { exchange: RecordedExchange; key: MatchKey }[] = [];

  constructor(
    exchanges: readonly RecordedExchange[],
    private readonly ignored: readonly string[],
  ) {
    for (const e of exchanges) this.add(e);
  }

  get size(): number {
    return this.all.length;
  }

  add(exchange: RecordedExchange): void {
    const key = recordedKey(exchange, this.ignored);
    this.all.push({ exchange, key });
    const text = keyText(key);
    const entry = this.byKey.get(text);
    if (entry) entry.exchanges.push(exchange);
    else this.byKey.set(text, { exchanges: [exchange], served: 0 });
  }

  /** The next recorded exchange for this key, in recorded order. */
  take(key: MatchKey): RecordedExchange | undefined {
    const entry = this.byKey.get(keyText(key));
    if (!entry) return undefined;
    const exchange = entry.exchanges[Math.min(entry.served, entry.exchanges.length - 1)]!;
    entry.served++;
    return exchange;
  }

  /** The recorded request of the same method closest to this one (same skill preferred). */
  nearest(key: MatchKey): Nearest | undefined {
    let best: (Nearest & { score: number }) | undefined;
    for (const { exchange, key: recorded } of this.all) {
      if (recorded.method !== key.method) continue;
      const differsAt = jsonDifferences(recorded.subject, key.subject, this.ignored).map((d) => d.pointer);
      // A different skill is farther than any number of differing fields.
      const score = (recorded.skill === key.skill ? 0 : 1_000_000) + differsAt.length;
      if (!best || score < best.score) best = { exchange, differsAt: recorded.skill === key.skill ? differsAt : ['/type'], score };
    }
    return best && { exchange: best.exchange, differsAt: best.differsAt };
  }
}
