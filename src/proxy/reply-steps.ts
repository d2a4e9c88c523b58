/**
 * Carrying out a reply plan's steps, whatever effect added them: JSON steps on a whole JSON
 * document, stream steps on a body as it travels. The one place a step that cannot act is noted
 * on the journal line ("patch not applied: …", "stream faults not applied: …").
 */
import type { Readable } from 'node:stream';
import type { JsonStep, StepContext, StreamStep } from '../effects/reply-plan.js';

/** Runs the steps in order on a document; a step that does not apply leaves it as it was. */
export function runJsonSteps(doc: unknown, steps: readonly JsonStep[], ctx: StepContext, notes: string[]): unknown {
  for (const step of steps) {
    const result = step.apply(doc, ctx);
    if ('doc' in result) doc = result.doc;
    else notes.push(`${step.label} not applied: ${result.notApplied}`);
  }
  return doc;
}

/**
 * Pipes a streaming body through the steps its content type allows. A body that fails mid-way
 * fails the steps after it too (pipe() alone would leave them open, and the buyer waiting).
 */
export function runStreamSteps(body: Readable, steps: readonly StreamStep[], contentType: string, ctx: StepContext, notes: string[]): Readable {
  let stream = body;
  for (const step of steps) {
    const refused = step.refuses?.(contentType);
    if (refused !== undefined) notes.push(`${step.label} not applied: ${refused}`);
    else {
      const next = stream.pipe(step.transform(ctx));
      stream.once('error', (err) => next.destroy(err));
      stream = next;
    }
  }
  return stream;
}

/** Most plans have no steps: their selections cost no filtered copy. */
const NO_STEPS: readonly never[] = Object.freeze([]);

/** The JSON steps that also change an envelope a terminal effect injected. */
export const injectedSteps = (steps: readonly JsonStep[]): readonly JsonStep[] => (steps.length === 0 ? NO_STEPS : steps.filter((s) => s.onInjected));

/** The stream steps that also slow or change a body sent whole. */
export const wholeBodySteps = (steps: readonly StreamStep[]): readonly StreamStep[] => (steps.length === 0 ? NO_STEPS : steps.filter((s) => s.onWholeBody));

/** Whether the steps may change the body's length (then the dealer's content-length is dropped). */
export const changesLength = (steps: readonly StreamStep[]): boolean => steps.some((s) => s.changesLength);
