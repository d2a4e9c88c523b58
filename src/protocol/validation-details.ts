/**
 * The `details.errors[]` of a validation error (SCHEMA_VALIDATION_FAILED, MISSING_REQUIRED_FIELD,
 * INVALID_CONDITION) that aap-chaos injects without being told which errors to list. The seed
 * makes the list a MUST for these codes, so it is never left out:
 *
 * - a request with real problems gets every one of them (its skill's request schema, plus
 *   lead.submit's condition and test-drive rules), as a dealer would list them;
 * - a valid request (the usual case for an injected fault) gets one deterministic, plausible
 *   entry per code, pointing at a field the request really has where the code allows it.
 */
import { isAapSkill, SALE_CONDITIONS, TRADE_IN_CONDITIONS, type AapCode } from './codes.js';
import type { ValidationProblem } from './validation-problem.js';
import { CONDITION_FIELDS, conditionProblems, escapePointer, requiredFieldPointers, testDriveProblems, validateSkillRequest } from './request-schemas.js';

/** What the derivation reads from a classified request. */
export interface ValidatedRequest {
  skill?: string;
  skillData?: Record<string, unknown>;
}

/**
 * Every validation problem of a payload, all stages run and merged (the seed: all currently
 * detectable problems in one response), under one code by this precedence: any schema problem →
 * SCHEMA_VALIDATION_FAILED; else a wrong condition vocabulary → INVALID_CONDITION; else a
 * test drive without a vehicle → MISSING_REQUIRED_FIELD. Undefined when the payload is valid.
 */
export function requestValidation(
  skill: string | undefined,
  data: Record<string, unknown> | undefined,
): { code: AapCode; problems: ValidationProblem[] } | undefined {
  if (!data || !isAapSkill(skill)) return undefined;
  const schema = validateSkillRequest(skill, data);
  const conditions = skill === 'lead.submit' ? conditionProblems(data) : [];
  const testDrive = skill === 'lead.submit' ? testDriveProblems(data) : [];
  const problems = [...schema, ...conditions, ...testDrive];
  if (problems.length === 0) return undefined;
  const code: AapCode = schema.length > 0 ? 'SCHEMA_VALIDATION_FAILED' : conditions.length > 0 ? 'INVALID_CONDITION' : 'MISSING_REQUIRED_FIELD';
  return { code, problems };
}

/** Every problem the mock dealer would report for this payload, all stages merged. */
export function realValidationProblems(skill: string | undefined, data: Record<string, unknown> | undefined): ValidationProblem[] {
  return requestValidation(skill, data)?.problems ?? [];
}

export function deriveValidationErrors(code: AapCode, request: ValidatedRequest): ValidationProblem[] {
  const real = realValidationProblems(request.skill, request.skillData);
  if (real.length > 0) return real;
  return [plausibleProblem(code, request)];
}

/** The JSON type a value is not, for a `type` entry that names a real field. */
const OTHER_TYPE: Record<string, string> = { string: 'integer', number: 'string', boolean: 'string', object: 'array', array: 'object', null: 'string' };

function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** The first leaf of the payload in document order (objects by key order, arrays from 0), `/type` excepted. */
function firstLeaf(data: Record<string, unknown>): { pointer: string; value: unknown } | undefined {
  const visit = (value: unknown, pointer: string): { pointer: string; value: unknown } | undefined => {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : value && typeof value === 'object'
        ? Object.entries(value as Record<string, unknown>)
        : [];
    if (entries.length === 0) return pointer === '' ? undefined : { pointer, value };
    for (const [key, child] of entries) {
      if (pointer === '' && key === 'type') continue;
      const found = visit(child, `${pointer}/${escapePointer(key)}`);
      if (found) return found;
    }
    return undefined;
  };
  return visit(data, '');
}

function plausibleProblem(code: AapCode, request: ValidatedRequest): ValidationProblem {
  const data = request.skillData;
  if (!data) {
    // No AAP DataPart at all (not a skill call): the part's type is what is missing.
    return { instanceLocation: '/type', keyword: 'required', error: 'is required' };
  }
  switch (code) {
    case 'MISSING_REQUIRED_FIELD': {
      const pointer = isAapSkill(request.skill) ? requiredFieldPointers(request.skill, data)[0] : undefined;
      return { instanceLocation: pointer ?? '/type', keyword: 'required', error: 'is required' };
    }
    case 'INVALID_CONDITION': {
      const given = CONDITION_FIELDS.find(({ field }) => (data[field] as { condition?: unknown } | undefined)?.condition !== undefined);
      const field = given?.field ?? 'vehicle_of_interest';
      const allowed = field === 'trade_in' ? TRADE_IN_CONDITIONS : SALE_CONDITIONS;
      return { instanceLocation: `/${field}/condition`, keyword: 'enum', error: `must be one of: ${allowed.join(', ')}` };
    }
    default: {
      const leaf = firstLeaf(data);
      if (!leaf) return { instanceLocation: '/type', keyword: 'const', error: `must be equal to "${String(data.type)}"` };
      return { instanceLocation: leaf.pointer, keyword: 'type', error: `must be ${OTHER_TYPE[jsonType(leaf.value)]}` };
    }
  }
}
