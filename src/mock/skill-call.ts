/**
 * One AAP skill call carried by SendMessage (or SendStreamingMessage): find the skill DataPart,
 * check media types and the JSON Schema, run the handler, and shape the agent's reply message.
 */
import { randomUUID } from 'node:crypto';
import type { Profile } from '../protocol/codes.js';
import { buildA2aError, buildAapError, type JsonRpcErrorResponse, type JsonRpcId } from '../protocol/envelopes.js';
import { requestValidation } from '../protocol/validation-details.js';
import { SKILL_HANDLERS, type SkillContext } from './skills/index.js';
import { SKILL_IDS, isSkillId, requestMediaType, responseMediaType, type SkillId } from './skill-table.js';

export interface AgentMessage {
  messageId: string;
  role: 'ROLE_AGENT';
  contextId: string;
  parts: Record<string, unknown>[];
}

export type SkillCallResult = { ok: true; skill: SkillId; message: AgentMessage } | { ok: false; envelope: JsonRpcErrorResponse };

interface Part {
  data?: unknown;
  mediaType?: unknown;
}

/** Media types a buyer may name instead of the exact vnd.autoagent one and still be served. */
const GENERIC_MEDIA_TYPES = new Set(['application/json', '*/*', 'application/*']);

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The first DataPart whose data.type is `<skill>.request` (AAP's only place for the skill id). */
function findSkillPart(parts: unknown[]): { part: Part; index: number } | undefined {
  const index = parts.findIndex((p) => {
    const type = asRecord(asRecord(p)?.data)?.type;
    return typeof type === 'string' && type.endsWith('.request');
  });
  return index === -1 ? undefined : { part: parts[index] as Part, index };
}

/** Besides the skill's own: the card's input modes, the generic JSON ones, and plain text (AAP dealers ignore TextParts). */
const OTHER_PART_MEDIA_TYPES = new Set([...SKILL_IDS.map(requestMediaType), ...GENERIC_MEDIA_TYPES, 'text/plain']);

/** The media type a part names, without parameters (`text/plain; charset=utf-8` is `text/plain`). */
function baseMediaType(value: string): string {
  return value.split(';')[0]!.trim().toLowerCase();
}

/**
 * -32005 when the skill part is sent as, any other part is sent as, or the buyer only accepts, a
 * media type this dealer does not speak (A2A §3.1.1: every part counts, not only the one AAP reads).
 */
function mediaTypeProblem(skill: SkillId, parts: unknown[], skillIndex: number, params: Record<string, unknown>): string | undefined {
  for (const [index, part] of parts.entries()) {
    const sent = asRecord(part)?.mediaType;
    if (typeof sent !== 'string' || sent === '') continue;
    const base = baseMediaType(sent);
    if (index === skillIndex) {
      if (base !== requestMediaType(skill) && !GENERIC_MEDIA_TYPES.has(base))
        return `Input media type '${sent}' is not supported for ${skill}; send ${requestMediaType(skill)}.`;
    } else if (!OTHER_PART_MEDIA_TYPES.has(base)) {
      return `message.parts[${index}] has media type '${sent}', which this dealer does not accept; it accepts ${requestMediaType(skill)} for ${skill}, and text/plain.`;
    }
  }
  const accepted = asRecord(params.configuration)?.acceptedOutputModes;
  if (Array.isArray(accepted) && accepted.length > 0 && !accepted.some((m) => m === responseMediaType(skill) || GENERIC_MEDIA_TYPES.has(String(m)))) {
    return `None of configuration.acceptedOutputModes can be produced for ${skill}; accept ${responseMediaType(skill)}.`;
  }
  return undefined;
}

export function callSkill(profile: Profile, id: JsonRpcId, params: unknown, ctx: SkillContext): SkillCallResult {
  const fail = (envelope: JsonRpcErrorResponse): SkillCallResult => ({ ok: false, envelope });
  const message = asRecord(asRecord(params)?.message);
  if (!message || !Array.isArray(message.parts)) {
    return fail(buildA2aError('INVALID_PARAMS', id, { message: 'Invalid params: params.message with a parts array is required.' }));
  }
  const found = findSkillPart(message.parts);
  if (!found) {
    return fail(
      buildAapError(profile, 'SCHEMA_VALIDATION_FAILED', id, {
        message: 'request failed validation with 1 error',
        errors: [{ instanceLocation: '/type', keyword: 'required', error: 'the message needs a DataPart whose data.type is "<skill>.request"' }],
      }),
    );
  }
  const data = found.part.data as Record<string, unknown>;
  const skillName = String(data.type).slice(0, -'.request'.length);
  if (!isSkillId(skillName)) {
    return fail(
      buildAapError(profile, 'UNSUPPORTED_SKILL', id, {
        message: `Skill '${skillName}' is not supported by this dealer agent.`,
        details: { skill: skillName, supported_skills: [...SKILL_IDS] },
      }),
    );
  }
  const mediaProblem = mediaTypeProblem(skillName, message.parts, found.index, asRecord(params)!);
  if (mediaProblem) return fail(buildA2aError('CONTENT_TYPE_NOT_SUPPORTED', id, { message: mediaProblem }));

  const invalid = requestValidation(skillName, data);
  if (invalid) {
    const { code, problems } = invalid;
    return fail(
      buildAapError(profile, code, id, {
        message: `request failed validation with ${problems.length} error${problems.length === 1 ? '' : 's'}`,
        errors: problems,
      }),
    );
  }
  const outcome = SKILL_HANDLERS[skillName](data, ctx);
  if (!outcome.ok) return fail(buildAapError(profile, outcome.code, id, outcome.options));

  const responseData: Record<string, unknown> = { type: `${skillName}.response`, data: outcome.data };
  if (outcome.message !== undefined) responseData.message = outcome.message;
  const contextId = typeof message.contextId === 'string' && message.contextId !== '' ? message.contextId : randomUUID();
  return {
    ok: true,
    skill: skillName,
    message: { messageId: randomUUID(), role: 'ROLE_AGENT', contextId, parts: [{ data: responseData, mediaType: responseMediaType(skillName) }] },
  };
}
