/**
 * lead.submit: parameter checks, consent, the vehicle of interest, idempotency, then the appointment.
 * Idempotency is checked before booking so a retried request never finds its own slot taken.
 */
import { randomUUID } from 'node:crypto';
import { rfc3339 } from '../../protocol/envelopes.js';
import { DEFAULT_DURATION_MINUTES, decideAppointment } from '../appointments.js';
import { payloadHash } from '../lead-store.js';
import type { Rooftop } from '../vehicle.js';
import { checkConsent } from './lead-rules.js';
import { failure, success, type SkillContext, type SkillHandler, type SkillOutcome } from './skill-handler.js';

interface AppointmentInput {
  appointment_type: string;
  appointment_at?: string;
  duration_minutes?: number;
}

/**
 * A lead about a listing must name one that is still for sale: by vin, stock or vehicle_id, or
 * else by year+make+model (the seed lists all four among VEHICLE_NOT_FOUND's identifiers). A lead
 * giving only part of year/make/model is taken as is.
 */
function checkVehicleOfInterest(request: Record<string, unknown>, ctx: SkillContext): { outcome?: SkillOutcome; rooftop?: string } {
  const voi = request.vehicle_of_interest as { vin?: string; stock?: string; vehicle_id?: string; year?: number; make?: string; model?: string } | undefined;
  if (!voi) return {};
  if (voi.vin === undefined && voi.stock === undefined && voi.vehicle_id === undefined) {
    if (voi.year === undefined || voi.make === undefined || voi.model === undefined) return {};
    const ymm = { year: voi.year, make: voi.make, model: voi.model };
    const found = ctx.inventory.lookupModel(ymm);
    if (found.found === 'listed') return { rooftop: found.vehicle.rooftop };
    if (found.found === 'sold')
      return {
        outcome: failure('VEHICLE_UNAVAILABLE', {
          message: `No ${ymm.year} ${ymm.make} ${ymm.model} is for sale any more.`,
          details: { ...ymm, status: 'sold' },
        }),
      };
    return { outcome: failure('VEHICLE_NOT_FOUND', { message: `No listing is a ${ymm.year} ${ymm.make} ${ymm.model}.`, details: ymm }) };
  }
  const key = { vin: voi.vin, stock: voi.stock, vehicle_id: voi.vehicle_id };
  const found = ctx.inventory.lookup(key);
  if (found.found === 'listed') return { rooftop: found.vehicle.rooftop };
  if (found.found === 'sold')
    return {
      outcome: failure('VEHICLE_UNAVAILABLE', {
        message: `The vehicle of interest (${found.vehicle.vin}) has been sold.`,
        details: { vin: found.vehicle.vin, status: 'sold' },
      }),
    };
  return {
    outcome: failure('VEHICLE_NOT_FOUND', {
      message: 'The vehicle of interest matches no listing.',
      details: JSON.parse(JSON.stringify(key)) as Record<string, unknown>,
    }),
  };
}

function scheduleAppointment(
  input: AppointmentInput,
  rooftop: Rooftop,
  ctx: SkillContext,
): { appointment?: Record<string, unknown>; message?: string; outcome?: SkillOutcome } {
  const appointmentId = `appt_${randomUUID()}`;
  if (input.appointment_at === undefined) return { appointment: { appointment_id: appointmentId, status: 'requested' } };
  const start = Date.parse(input.appointment_at);
  const durationMinutes = input.duration_minutes ?? DEFAULT_DURATION_MINUTES;
  const decision = decideAppointment({ rooftop, start, durationMinutes, now: ctx.now().getTime() }, ctx.leads);
  switch (decision.status) {
    case 'confirmed':
      ctx.leads.book(appointmentId, { rooftop: rooftop.name, start: decision.start, end: decision.end });
      return { appointment: { appointment_id: appointmentId, status: 'confirmed', confirmed_at: rfc3339(new Date(decision.start)) } };
    case 'proposed':
      return {
        appointment: { appointment_id: appointmentId, status: 'proposed', proposed_times: decision.proposed.map((t) => rfc3339(new Date(t))) },
        message: `Requested time not available (${decision.reason}); pick one of the proposed times.`,
      };
    case 'unavailable':
      return {
        outcome: failure('APPOINTMENT_TIME_UNAVAILABLE', {
          message: `The requested appointment time cannot be honoured and no alternative exists: ${decision.reason}.`,
          details: { appointment_at: input.appointment_at, rooftop: rooftop.name },
        }),
      };
  }
}

export const leadSubmit: SkillHandler = (request, ctx) => {
  const lead = request as Parameters<typeof checkConsent>[0];
  // Conditions and the test-drive rule are validation stages, merged with the schema's in skill-call.ts.
  const rejected = checkConsent(lead, ctx.now());
  if (rejected) return rejected;
  const vehicle = checkVehicleOfInterest(request, ctx);
  if (vehicle.outcome) return vehicle.outcome;

  const key = request.idempotency_key as string | undefined;
  const hash = payloadHash(request);
  const earlier = key === undefined ? undefined : ctx.leads.remembered(key);
  if (earlier) {
    if (earlier.payloadHash !== hash) {
      return failure('IDEMPOTENCY_CONFLICT', {
        message: `idempotency_key '${key}' was already used with a different payload; use a fresh key for a new lead.`,
        details: { idempotency_key: key, original_lead_id: earlier.response.lead_id },
      });
    }
    return success({ ...earlier.response, status: 'duplicate' }, 'This lead was already received; returning the original.');
  }

  const rooftop = ctx.inventory.rooftop(vehicle.rooftop);
  const response: Record<string, unknown> = { lead_id: `lead_${randomUUID()}`, status: 'received' };
  let message: string | undefined;
  if (request.appointment !== undefined) {
    const scheduled = scheduleAppointment(request.appointment as AppointmentInput, rooftop, ctx);
    if (scheduled.outcome) return scheduled.outcome;
    response.appointment = scheduled.appointment;
    message = scheduled.message;
  }
  const phone = rooftop.phones?.[0]?.value;
  response.dealer = phone === undefined ? { name: rooftop.name } : { name: rooftop.name, phone };
  if (key !== undefined) ctx.leads.remember(key, { payloadHash: hash, response });
  return success(response, message);
};
