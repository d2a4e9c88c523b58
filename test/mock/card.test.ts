import t from 'tap';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import { SKILL_IDS } from '../../src/mock/index.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { startDealer } from './dealer-fixture.js';

interface Card {
  name: string;
  description: string;
  version: string;
  supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
  capabilities: { streaming: boolean; extensions: { uri: string; required: boolean; params: { skills: Record<string, unknown> } }[] };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: { id: string; tags: string[] }[];
}

async function fetchCard(url: string): Promise<Card> {
  const res = await fetch(`${url}/.well-known/agent-card.json`);
  if (res.status !== 200) throw new Error(`card fetch answered ${res.status}`);
  return (await res.json()) as Card;
}

/** fetch may not set Host, so this one goes through node:http. */
async function fetchCardAs(url: string, host: string): Promise<Card> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(`${url}/.well-known/agent-card.json`, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Card));
    })
      .on('error', reject)
      .end();
  });
}

t.test('the 1.3 card advertises the v1.3 URI as not required (the 1.3 mock serves without it), the five skills and the vnd.autoagent modes', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  const card = await fetchCard(mockUrl);
  t.ok(card.name && card.description && card.version);
  t.same(card.supportedInterfaces, [{ url: `${mockUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  t.same(
    card.capabilities.extensions.map((e) => [e.uri, e.required]),
    [[AAP_EXTENSION_URI_1_3, false]],
  );
  t.same(Object.keys(card.capabilities.extensions[0]!.params.skills), [...SKILL_IDS]);
  t.equal(card.capabilities.streaming, false);
  t.same(
    card.skills.map((s) => s.id),
    [...SKILL_IDS],
  );
  t.ok(card.skills.every((s) => s.tags.length > 0));
  t.ok(card.defaultInputModes.includes('application/vnd.autoagent.vehicle-detail-request+json'));
  t.ok(card.defaultOutputModes.includes('application/vnd.autoagent.inventory-search-response+json'));
  t.ok([...card.defaultInputModes, ...card.defaultOutputModes].every((m) => m.startsWith('application/vnd.autoagent.')));
});

t.test('the interface URL is built from the Host header the buyer used', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  // A loopback name: on loopback the mock answers no other (test/proxy/inner-dealers.test.ts).
  const card = await fetchCardAs(mockUrl, 'dealer.localhost:9999');
  t.equal(card.supportedInterfaces[0]!.url, 'http://dealer.localhost:9999/a2a');
});

t.test('the 2.0 card carries the draft URI by default, or the configured one, and the streaming flag', async (t) => {
  const draft = await startDealer(t, { profile: '2.0' }, 'direct');
  t.equal((await fetchCard(draft.mockUrl)).capabilities.extensions[0]!.uri, AAP_EXTENSION_URI_2_0_DRAFT);
  const custom = await startDealer(t, { profile: '2.0', extensionUri: 'https://autoagentprotocol.org/extensions/aap/v2.0', streaming: true }, 'direct');
  const card = await fetchCard(custom.mockUrl);
  t.equal(card.capabilities.extensions[0]!.uri, 'https://autoagentprotocol.org/extensions/aap/v2.0');
  t.equal(card.capabilities.streaming, true);
});

t.test('through the proxy, the SDK resolves the card and reaches the dealer', async (t) => {
  const { url } = await startDealer(t);
  const card = await fetchCard(url);
  t.equal(card.supportedInterfaces[0]!.url, `${url}/a2a`, 'the proxy points the card at itself');
  const reply = await sendSkill(await createBuyer(url), 'dealer.information', {}, { extensionUri: AAP_EXTENSION_URI_1_3 });
  t.equal(reply.ok, true);
});

t.test('unknown paths get 404 and GET /a2a gets 405', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  t.equal((await fetch(`${mockUrl}/nope`)).status, 404);
  const res = await fetch(`${mockUrl}/a2a`);
  t.equal(res.status, 405);
  t.equal(res.headers.get('allow'), 'POST');
});
