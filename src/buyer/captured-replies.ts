/**
 * The replies aapFetch kept, so that readAapError can find the raw envelope and the HTTP facts
 * behind an SDK exception that no longer carries them. Two ways to find one:
 *
 * - by identity: the object the SDK holds on to (`error.data` as parsed by aapFetch, or the
 *   SyntaxError aapFetch itself threw for a body that is not JSON) — exact;
 * - by content, newest first, among the last few replies: the JSON-RPC code, message and data
 *   the exception still has (the SDK re-parses non-2xx bodies itself, so identity is lost there),
 *   or the status and body text an "HTTP error" message quotes. A reply found this way is taken
 *   out and filed under the exception itself: it answers for one exception only, so two equal
 *   bodies (from two clients) never lend each other their HTTP facts, and a second read of the
 *   same exception still finds it.
 *
 * Both stores are bounded; nothing here outlives its reply by more than MAX_RECENT replies.
 */
import { isObject, type Json } from './reading.js';

export interface CapturedReply {
  status: number;
  retryAfterMs?: number;
  /** The JSON-RPC error member, when the body was an error envelope. */
  error?: Json;
  /** Its JSON text (for matching by content), when small enough to keep. */
  errorText?: string;
  /** The start of a body that was not a JSON-RPC envelope. */
  bodyStart?: string;
  /** The body was not JSON at all. */
  notJson?: boolean;
}

const MAX_RECENT = 64;
const MAX_RECENT_CHARS = 8 * 1024 * 1024;
/** An "HTTP error" message quotes the whole body; this much of it is enough to recognise it. */
export const BODY_START_CHARS = 256;

const byObject = new WeakMap<object, CapturedReply>();
const recent: { reply: CapturedReply; chars: number }[] = [];
let recentChars = 0;

/**
 * Keeps a reply; `keys` are objects the SDK will hold on to (parsed `error.data`, a thrown
 * SyntaxError); `weight`, in characters, is what the reply holds when more than its texts (a
 * parsed error member weighs its body's length), so MAX_RECENT_CHARS bounds what is kept.
 */
export function keepReply(reply: CapturedReply, keys: object[] = [], weight?: number): void {
  for (const key of keys) byObject.set(key, reply);
  const chars = Math.max(weight ?? 0, (reply.errorText?.length ?? 0) + (reply.bodyStart?.length ?? 0));
  recent.push({ reply, chars });
  recentChars += chars;
  while (recent.length > MAX_RECENT || recentChars > MAX_RECENT_CHARS) recentChars -= recent.shift()!.chars;
}

function sameJson(value: unknown, text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    return JSON.stringify(value) === text;
  } catch {
    return false;
  }
}

/** The reply behind `x` (an SDK exception, its data, a cause), if aapFetch kept it. */
export function capturedFor(x: object): CapturedReply | undefined {
  const direct = byObject.get(x);
  if (direct) return direct;
  const o = x as Json;
  if (isObject(o.data) || Array.isArray(o.data)) {
    const viaData = byObject.get(o.data as object);
    if (viaData) return viaData;
  }
  const message = typeof o.message === 'string' ? o.message : undefined;
  if (message === undefined) return undefined;
  const code = typeof o.envelopeCode === 'number' ? o.envelopeCode : typeof o.code === 'number' ? o.code : undefined;
  for (let i = recent.length - 1; i >= 0; i--) {
    const { reply, chars } = recent[i]!;
    if (!matches(reply, o, message, code)) continue;
    recent.splice(i, 1);
    recentChars -= chars;
    byObject.set(x, reply);
    return reply;
  }
  return undefined;
}

function matches(reply: CapturedReply, o: Json, message: string, code: number | undefined): boolean {
  if (reply.error) {
    if (reply.error.message !== message || (code !== undefined && reply.error.code !== code)) return false;
    // The data must be the same too, unless the exception lost it (older SDKs keep the message only).
    return !('data' in o && o.data !== undefined) || sameJson({ code: reply.error.code, message, data: o.data }, reply.errorText);
  }
  return reply.bodyStart !== undefined && message.includes(`Status: ${reply.status}`) && message.includes(reply.bodyStart);
}
