/**
 * `--check-dealer`: a bounded copy of what the dealer sent, taken while the bytes go to the buyer
 * unchanged, and checked by the conformance module only once the reply is out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { findAapExtension, isAgentCardPath } from '../protocol/agent-card.js';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Profile } from '../protocol/codes.js';
import { checkCard, checkReply, exchangeRequestOf, violationsOf, type Violation } from '../protocol/conformance/index.js';

/** The first `limit` bytes of a dealer reply, with its status and headers. */
export class DealerReplyCopy {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly limit: number,
  ) {}

  push(chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.limit - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.limit;
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Whether `--check-dealer` looks at the reply to this request: JSON-RPC calls and the agent card. */
export function isCheckedRequest(request: ClassifiedRequest): boolean {
  return request.kind === 'jsonrpc' || (request.httpMethod === 'GET' && isAgentCardPath(request.path));
}

export interface DealerContext {
  profile: Profile;
  extensionUri: string;
  extensionRequired?: boolean;
}

/** The conformance violations of one dealer reply (an empty list when it kept every rule it met). */
export function dealerViolations(request: ClassifiedRequest, copy: DealerReplyCopy, dealer: DealerContext): Violation[] {
  if (request.kind !== 'jsonrpc') {
    if (copy.truncated || copy.status !== 200) return [];
    let card: unknown;
    try {
      card = JSON.parse(copy.bytes().toString('utf8'));
    } catch {
      card = '(a card that is not JSON)';
    }
    return violationsOf(checkCard(card, findAapExtension(card)?.profile ?? dealer.profile));
  }
  return violationsOf(
    checkReply({
      profile: dealer.profile,
      extensionUri: dealer.extensionUri,
      extensionRequired: dealer.extensionRequired,
      request: exchangeRequestOf(request),
      status: copy.status,
      headers: copy.headers,
      body: copy.bytes(),
      truncated: copy.truncated,
    }),
  );
}
