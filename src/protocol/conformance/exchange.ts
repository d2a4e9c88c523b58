/** What the reply rules look at: one request as the dealer received it and its reply, as bytes. */
import type { ClassifiedRequest } from '../classify.js';
import type { Profile } from '../codes.js';
import type { JsonRpcId } from '../envelopes.js';

export interface ExchangeRequest {
  /** JSON-RPC id, exact type; null when absent. */
  id: JsonRpcId;
  method?: string;
  /** AAP skill id from `<skill>.request`, whatever it names. */
  skill?: string;
  /** The skill DataPart's data. */
  skillData?: Record<string, unknown>;
  /** params.message.messageId, which the reply's messageId must differ from. */
  messageId?: unknown;
  /** A2A-Version: undefined when absent, '' when empty. */
  a2aVersion?: string;
  extensions: readonly string[];
}

export interface Exchange {
  profile: Profile;
  /** The AAP extension URI of the dealer's card (what -32008 must name and A2A-Extensions must carry). */
  extensionUri?: string;
  /** Whether the card marks that extension required (true when unknown under 2.0). */
  extensionRequired?: boolean;
  request: ExchangeRequest;
  status: number;
  /** Response headers, names lower-cased. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer | string;
  /** True when `body` is only the first bytes of a longer reply. */
  truncated?: boolean;
}

/** The exchange request of a classified request (the proxy's view of what the buyer sent). */
export function exchangeRequestOf(request: ClassifiedRequest): ExchangeRequest {
  const message = (request.body?.params as { message?: { messageId?: unknown } } | undefined)?.message;
  return {
    id: request.id,
    method: request.rpcMethod,
    skill: request.skill,
    skillData: request.skillData,
    messageId: message?.messageId,
    a2aVersion: request.a2aVersion,
    extensions: request.extensions,
  };
}

export function headerText(headers: Exchange['headers'], name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}
