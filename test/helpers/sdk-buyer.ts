/**
 * A buyer built on the real @a2a-js/sdk@1.3.0 client: make one for a dealer URL, send one AAP
 * skill request, and get back either the reply DataPart's data or the JSON-RPC error as the SDK
 * surfaced it (envelopeCode, raw error.data, message).
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ServiceParameters, withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';

export type Buyer = Client;

export async function createBuyer(url: string): Promise<Buyer> {
  return new ClientFactory().createFromUrl(url);
}

export interface SkillRequestOptions {
  /** Sent in A2A-Extensions; omit (or pass undefined) to send no extension header. */
  extensionUri?: string;
  /** Overrides the part's mediaType (default application/vnd.autoagent.<slug>-request+json). */
  mediaType?: string;
  /** configuration.acceptedOutputModes; default the skill's response media type. */
  acceptedOutputModes?: string[];
  contextId?: string;
}

export type SkillReply =
  | { ok: true; data: Record<string, unknown>; contextId: string; messageId: string }
  | { ok: false; envelopeCode: number | undefined; data: unknown; message: string; error: unknown };

/** Media-type slug of a skill id; `inventory.vehicle` is AAP's one irregular name. */
export function skillSlug(skill: string): string {
  return skill === 'inventory.vehicle' ? 'vehicle-detail' : skill.replace(/\./g, '-');
}

/** The wire (ProtoJSON) form of a SendMessage request for one skill. */
export function skillRequestJson(skill: string, payload: Record<string, unknown> = {}, opts: SkillRequestOptions = {}): Record<string, unknown> {
  const slug = skillSlug(skill);
  const message: Record<string, unknown> = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ data: { type: `${skill}.request`, ...payload }, mediaType: opts.mediaType ?? `application/vnd.autoagent.${slug}-request+json` }],
  };
  if (opts.contextId !== undefined) message.contextId = opts.contextId;
  return {
    message,
    configuration: { acceptedOutputModes: opts.acceptedOutputModes ?? [`application/vnd.autoagent.${slug}-response+json`] },
  };
}

export function requestOptions(opts: SkillRequestOptions): { serviceParameters?: ServiceParameters } {
  return opts.extensionUri === undefined ? {} : { serviceParameters: ServiceParameters.create(withA2AExtensions(opts.extensionUri)) };
}

export async function sendSkill(buyer: Buyer, skill: string, payload: Record<string, unknown> = {}, opts: SkillRequestOptions = {}): Promise<SkillReply> {
  const request = SendMessageRequest.fromJSON(skillRequestJson(skill, payload, opts));
  try {
    const result = await buyer.sendMessage(request, requestOptions(opts));
    if (!('parts' in result)) throw new Error(`expected a Message reply, got a Task: ${JSON.stringify(result)}`);
    const part = result.parts[0];
    if (part?.content?.$case !== 'data') throw new Error(`expected a DataPart reply, got ${JSON.stringify(part)}`);
    return { ok: true, data: part.content.value as Record<string, unknown>, contextId: result.contextId, messageId: result.messageId };
  } catch (error) {
    if (!isJsonRpcError(error)) throw error;
    return { ok: false, envelopeCode: error.envelopeCode, data: error.data, message: error.message, error };
  }
}
