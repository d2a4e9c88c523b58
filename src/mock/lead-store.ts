/**
 * In-memory lead state of one mock dealer: answers remembered per idempotency key, and the
 * appointment slots already booked (which is what makes a later request for the same slot "taken").
 * Both are bounded.
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from './bounded-map.js';

export const MAX_REMEMBERED_LEADS = 10_000;
export const MAX_BOOKINGS = 10_000;

export interface RememberedLead {
  /** Hash of the canonical request payload: "same payload" means equal hashes. */
  payloadHash: string;
  /** The response data sent the first time. */
  response: Record<string, unknown>;
}

export interface Booking {
  rooftop: string;
  start: number;
  end: number;
}

/** JSON with object keys sorted at every level, so key order never makes two payloads differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function payloadHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export class LeadStore {
  private readonly byKey = new BoundedMap<string, RememberedLead>(MAX_REMEMBERED_LEADS);
  private readonly bookings = new BoundedMap<string, Booking>(MAX_BOOKINGS);

  remembered(idempotencyKey: string): RememberedLead | undefined {
    return this.byKey.get(idempotencyKey);
  }

  remember(idempotencyKey: string, lead: RememberedLead): void {
    this.byKey.set(idempotencyKey, lead);
  }

  isTaken(rooftop: string, start: number, end: number): boolean {
    for (const b of this.bookings.values()) {
      if (b.rooftop === rooftop && b.start < end && start < b.end) return true;
    }
    return false;
  }

  book(appointmentId: string, booking: Booking): void {
    this.bookings.set(appointmentId, booking);
  }
}
