/**
 * The embedded mock dealer: a spec-faithful AAP dealer agent as a plain Node request handler,
 * so it can run alone (startMockDealer) or be mounted in-process by the proxy.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extensionUriForProfile, type Profile } from '../protocol/codes.js';
import { buildAapError } from '../protocol/envelopes.js';
import { AGENT_CARD_PATH, RPC_PATH, buildAgentCard } from './card.js';
import { sendCard, sendJson } from './http-io.js';
import { Inventory } from './inventory.js';
import { loadInventoryFile } from './inventory-file.js';
import { LeadStore } from './lead-store.js';
import { handleRpc, type RpcSettings } from './rpc-dispatch.js';
import { TaskStore } from './task-store.js';
import { signCard, type CardSigningKey } from '../protocol/card-signature.js';
import { answeredCardJwks } from '../http/card-jwks.js';
import { breakConnection } from '../http/reply-connection.js';

export interface MockDealerOptions {
  /** Envelope profile and header policy; default '1.3'. */
  profile?: Profile;
  /** The AAP extension URI on the card; default per profile. */
  extensionUri?: string;
  /** Serve SendStreamingMessage as a task stream; default false. */
  streaming?: boolean;
  /** Milliseconds between the events of a task stream (default FRAME_GAP_MS); a test of stream timing wants them wide. */
  streamGapMs?: number;
  /** JSON inventory to serve instead of the generated one. */
  inventoryFile?: string;
  /** Seed of the generated inventory (ignored with inventoryFile). */
  seed?: number;
  /** Clock for consent and appointment rules; tests may pin it. */
  now?: () => Date;
  /** The dealer's name on its card, in dealer.information and in its rooftops' names (default the inventory's); one per mock when several run. */
  name?: string;
  /** Signs the agent card (A2A v1.0 card signatures); its public half is served at /.well-known/aap-chaos/jwks.json. */
  cardSigningKey?: CardSigningKey;
  /** The `dealer_id` of every vehicle (default the inventory's); one per mock when several run. */
  dealerId?: string;
}

export interface MockDealer {
  readonly profile: Profile;
  readonly extensionUri: string;
  readonly streaming: boolean;
  readonly inventory: Inventory;
  /** The key the card is signed with, if any. */
  readonly cardSigningKey: CardSigningKey | undefined;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export function createMockDealer(opts: MockDealerOptions = {}): MockDealer {
  const profile = opts.profile ?? '1.3';
  const extensionUri = opts.extensionUri ?? extensionUriForProfile(profile);
  if (!URL.canParse(extensionUri)) throw new Error(`mock dealer: extension URI "${extensionUri}" is not an absolute URI`);
  const streaming = opts.streaming ?? false;
  // Loading throws a user-facing Error (file name + JSON paths) before any server starts.
  const stock = opts.inventoryFile !== undefined ? loadInventoryFile(opts.inventoryFile) : Inventory.fromSeed(opts.seed);
  const renamed = opts.name !== undefined || opts.dealerId !== undefined;
  const inventory = renamed ? stock.asDealer({ name: opts.name ?? stock.dealer.name, dealerId: opts.dealerId }) : stock;
  const cardDealer = inventory.dealer;
  const settings: RpcSettings = {
    profile,
    extensionUri,
    streaming,
    streamGapMs: opts.streamGapMs,
    skillContext: { inventory, leads: new LeadStore(), now: opts.now ?? (() => new Date()) },
    tasks: new TaskStore(),
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (answeredCardJwks(req, res, opts.cardSigningKey)) return;
    if (path === AGENT_CARD_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      const host = req.headers.host ?? `127.0.0.1:${req.socket.localPort ?? 80}`;
      const card = buildAgentCard({ profile, extensionUri, streaming, dealer: cardDealer, host });
      return sendCard(req, res, opts.cardSigningKey ? await signCard(card, opts.cardSigningKey) : card);
    }
    // Stock A2A servers route the interface URL with or without a trailing slash.
    if (path === RPC_PATH || path === `${RPC_PATH}/`) {
      if (req.method === 'POST') return handleRpc(settings, req, res);
      return sendJson(res, 405, { error: `Use POST for JSON-RPC at ${RPC_PATH}.` }, { allow: 'POST' });
    }
    sendJson(res, 404, { error: `Not found: ${path}. The agent card is at ${AGENT_CARD_PATH}, JSON-RPC at ${RPC_PATH}.` });
  }

  return {
    profile,
    extensionUri,
    streaming,
    inventory,
    cardSigningKey: opts.cardSigningKey,
    handle(req, res) {
      route(req, res).catch(() => {
        // A bug must never take the dealer down or leak a stack: answer INTERNAL_ERROR if still possible.
        if (!res.headersSent) sendJson(res, 200, buildAapError(profile, 'INTERNAL_ERROR', null));
        else breakConnection(res);
      });
    },
  };
}
