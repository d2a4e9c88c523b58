/**
 * Appointment scheduling for lead.submit. A requested time is confirmed when it falls inside the
 * rooftop's opening hours, within the booking horizon, and does not overlap an earlier booking;
 * otherwise free opening slots are proposed (the next ones, or past the horizon the last ones
 * before it), as the seed prefers. Only a request with no free slot in reach gets
 * APPOINTMENT_TIME_UNAVAILABLE.
 */
import type { LeadStore } from './lead-store.js';
import { WEEKDAYS, type Rooftop, type Weekday } from './vehicle.js';

export const BOOKING_HORIZON_DAYS = 90;
export const DEFAULT_DURATION_MINUTES = 60;
const SLOT_MINUTES = 30;
const PROPOSAL_COUNT = 3;
/** How far past the requested time alternatives are looked for. */
const PROPOSAL_SEARCH_DAYS = 14;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export type AppointmentDecision =
  | { status: 'confirmed'; start: number; end: number }
  | { status: 'proposed'; proposed: number[]; reason: string }
  | { status: 'unavailable'; reason: string };

interface LocalTime {
  weekday: Weekday;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Weekday and minutes since local midnight of an instant in the rooftop's timezone. */
function localTime(instant: number, timeZone: string): LocalTime {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, fmt);
  }
  const parts = Object.fromEntries(fmt.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  return { weekday: String(parts.weekday).toLowerCase() as Weekday, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

const toMinutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** True when [start, start + duration) lies inside one day's opening hours of the rooftop. */
export function isOpen(rooftop: Rooftop, start: number, durationMinutes: number): boolean {
  const hours = rooftop.schedules?.[0]?.value;
  if (!hours) return true; // a rooftop that publishes no hours takes any time
  const local = localTime(start, rooftop.timezone ?? 'UTC');
  if (!WEEKDAYS.includes(local.weekday)) return false;
  const day = hours[local.weekday];
  if (!day) return false;
  return local.minutes >= toMinutes(day.open) && local.minutes + durationMinutes <= toMinutes(day.close);
}

export interface AppointmentRequest {
  rooftop: Rooftop;
  start: number;
  durationMinutes: number;
  now: number;
}

export function decideAppointment(req: AppointmentRequest, leads: LeadStore): AppointmentDecision {
  const { rooftop, start, durationMinutes, now } = req;
  const horizon = now + BOOKING_HORIZON_DAYS * DAY;
  const length = durationMinutes * MINUTE;
  const free = (t: number): boolean => t >= now && t <= horizon && isOpen(rooftop, t, durationMinutes) && !leads.isTaken(rooftop.name, t, t + length);
  if (free(start)) return { status: 'confirmed', start, end: start + length };

  const reason =
    start < now
      ? 'the requested time is in the past'
      : start > horizon
        ? `the requested time is more than ${BOOKING_HORIZON_DAYS} days ahead`
        : !isOpen(rooftop, start, durationMinutes)
          ? `${rooftop.name} is closed at the requested time`
          : 'the requested time is already booked';
  const proposed: number[] = [];
  const slot = SLOT_MINUTES * MINUTE;
  // Past the horizon, alternatives are looked for in its last days (the closest bookable times).
  const searchFrom = Math.max(now, Math.min(start, horizon - PROPOSAL_SEARCH_DAYS * DAY));
  const from = Math.ceil(searchFrom / slot) * slot;
  const until = Math.min(horizon, searchFrom + PROPOSAL_SEARCH_DAYS * DAY);
  for (let t = from; t <= until && proposed.length < PROPOSAL_COUNT; t += slot) {
    if (free(t)) proposed.push(t);
  }
  return proposed.length > 0 ? { status: 'proposed', proposed, reason } : { status: 'unavailable', reason };
}
