/**
 * Envelope faults: the same error, shaped so that only a buyer that reads it by the rules
 * copes. Under 2.0 the `data` entries are reordered and padded with an unknown `@type` (buyers
 * must find the AAP payload by `@type`); under 1.3 the bare payload gains unknown fields.
 * A leading ErrorInfo stays first: the seed makes that a MUST of the dealer, so only the
 * entries after it move.
 */
import { ERROR_INFO_TYPE, type Profile } from './codes.js';

export interface EnvelopeFaults {
  shuffle?: boolean;
  unknown_detail?: boolean;
}

export const UNKNOWN_DETAIL_TYPE = 'type.googleapis.com/example.chaos.UnknownDetail';

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  // A shuffle that happens to keep the order proves nothing: rotate instead.
  if (out.length > 1 && out.every((v, i) => v === items[i])) out.push(out.shift()!);
  return out;
}

const unknownDetail = () => ({ '@type': UNKNOWN_DETAIL_TYPE, note: 'an entry buyers must ignore', level: 3 });

/**
 * Both faults at once: every entry after the ErrorInfo leaves its place (a shuffle that keeps one
 * in place is rotated instead), between two unknown entries. So no fixed position — `data[1]`,
 * `data[2]`, the last entry — holds what it held before, and a buyer that reads the AAP payload
 * by position misreads every such error (a shuffle alone could leave the payload last).
 */
function displaced<T>(entries: T[], random: () => number): (T | ReturnType<typeof unknownDetail>)[] {
  let moved = entries.length > 1 ? shuffled(entries, random) : entries;
  if (moved.some((v, i) => v === entries[i]) && entries.length > 1) moved = [...entries.slice(1), entries[0]!];
  return [unknownDetail(), ...moved, unknownDetail()];
}

const NOT_AN_ERROR = 'the reply is not a JSON-RPC error';

/**
 * Returns a changed copy of a JSON-RPC reply; replies that are not errors come back unchanged,
 * with the reason a fault could not act.
 */
export function applyEnvelopeFaults(
  reply: unknown,
  faults: EnvelopeFaults,
  profile: Profile,
  random: () => number,
): { reply: unknown; changed: boolean; reason?: string } {
  const error = (reply as { error?: { data?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return { reply, changed: false, reason: NOT_AN_ERROR };
  let data = error.data;
  if (Array.isArray(data)) {
    const leads = (data[0] as { '@type'?: unknown } | undefined)?.['@type'] === ERROR_INFO_TYPE ? 1 : 0;
    let tail = data.slice(leads);
    if (faults.shuffle && faults.unknown_detail) tail = displaced(tail, random);
    else {
      if (faults.unknown_detail) tail.push(unknownDetail());
      if (faults.shuffle && tail.length > 1) tail = shuffled(tail, random);
      else if (!faults.unknown_detail) return { reply, changed: false, reason: 'only one entry follows the leading ErrorInfo: nothing to reorder' };
    }
    data = [...data.slice(0, leads), ...tail];
  } else if (data && typeof data === 'object' && profile === '1.3') {
    if (faults.unknown_detail) data = { ...data, x_unknown_field: 'buyers must ignore unknown fields', x_trace: { hops: 2 } };
    if (faults.shuffle) data = Object.fromEntries(shuffled(Object.entries(data as object), random));
  } else {
    return { reply, changed: false, reason: NOT_AN_ERROR };
  }
  return { reply: { ...(reply as object), error: { ...error, data } }, changed: true };
}
