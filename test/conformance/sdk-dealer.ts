/**
 * A dealer built the obvious way on the stock @a2a-js/sdk server: DefaultRequestHandler and
 * JsonRpcTransportHandler wired to node:http the way the SDK's own express handler does it
 * (version check, A2A-Extensions parsed into the call context, activated extensions echoed).
 * Its card declares the AAP 2.0 extension required; the SDK enforces that with its own -32008.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AgentCard, Extensions, Message } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  validateVersion,
  UnauthenticatedUser,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';

export interface SdkDealer {
  url: string;
  close(): Promise<void>;
}

function cardJson(base: string): Record<string, unknown> {
  return {
    name: 'SDK Motors',
    description: 'A dealer agent on the stock a2a-js server',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false, pushNotifications: false, extensions: [{ uri: AAP_EXTENSION_URI_2_0_DRAFT, required: true, description: 'AAP' }] },
    defaultInputModes: ['application/vnd.autoagent.dealer-information-request+json'],
    defaultOutputModes: ['application/vnd.autoagent.dealer-information-response+json'],
    skills: [{ id: 'dealer.information', name: 'Dealer Information', description: 'The dealership', tags: ['dealer'] }],
  };
}

/** Answers dealer.information with a valid payload; any other request gets nothing special. */
const executor: AgentExecutor = {
  async execute(ctx, bus) {
    bus.publish(
      AgentEvent.message(
        Message.fromJSON({
          messageId: randomUUID(),
          contextId: ctx.contextId,
          role: 'ROLE_AGENT',
          parts: [
            {
              data: { type: 'dealer.information.response', data: { name: 'SDK Motors', rooftops: [{ name: 'SDK Motors Main' }] } },
              mediaType: 'application/vnd.autoagent.dealer-information-response+json',
            },
          ],
        }),
      ),
    );
    bus.finished();
  },
  async cancelTask() {},
};

export async function startSdkDealer(): Promise<SdkDealer> {
  let handler: DefaultRequestHandler | undefined;
  let transport: JsonRpcTransportHandler | undefined;
  let card: Record<string, unknown> = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(card));
      }
      const send = (body: unknown, headers: Record<string, string | string[]> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      let body: { id?: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const context = defaultServerCallContextBuilder({
          extensions: Extensions.parseServiceParameter(req.headers['a2a-extensions'] as string | undefined),
          user: new UnauthenticatedUser(),
          headers: req.headers,
          requestedVersion: (req.headers['a2a-version'] as string | undefined) || undefined,
        });
        validateVersion(context.requestedVersion, await handler!.getAgentCard(), 'JSONRPC');
        const reply = await transport!.handle(body, context);
        send(reply, context.activatedExtensions ? { 'a2a-extensions': Array.from(context.activatedExtensions) } : {});
      } catch (err) {
        send({ jsonrpc: '2.0', id: body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  card = cardJson(url);
  handler = new DefaultRequestHandler(AgentCard.fromJSON(card), new InMemoryTaskStore(), executor);
  transport = new JsonRpcTransportHandler(handler);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
