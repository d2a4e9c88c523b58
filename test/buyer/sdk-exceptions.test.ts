// The real @a2a-js/sdk client against the proxy in front of the embedded mock dealer, one error
// rule per call (forced by the x-aap-chaos header): readAapError on the exception the SDK really
// throws must read what was on the wire — and, through aapFetch, also what the SDK dropped (the
// HTTP status and Retry-After).
import t, { type Test } from 'tap';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { aapFetch, readAapError, type AapErrorReading, type FetchLike } from '../../src/buyer/index.js';
import { startChaos } from '../../src/index.js';
import { AAP_CODE_TABLE, PROFILES, extensionUriForProfile, type Profile } from '../../src/protocol/codes.js';
import { skillRequestJson } from '../helpers/sdk-buyer.js';

t.setTimeout(120_000);

const RATE_LIMITED_1_3_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  error: {
    code: -32002,
    message: 'Slow down',
    data: { type: 'aap.error', error_id: 'err_429', code: 'RATE_LIMITED', message: 'Slow down', retryable: true, created_at: '2026-01-01T00:00:00Z' },
  },
});

/** Every rule fires only when a call names it in x-aap-chaos (probability 0 keeps it off otherwise). */
const scenario = {
  scenario: 'one-error-per-call',
  seed: 1,
  rules: [
    { id: 'rate', error: 'RATE_LIMITED', retry_after_ms: 1500 },
    { id: 'validation', error: 'SCHEMA_VALIDATION_FAILED' },
    { id: 'internal-final', error: 'INTERNAL_ERROR', retryable: false },
    { id: 'shuffled', error: 'VEHICLE_UNAVAILABLE', envelope: { shuffle: true, unknown_detail: true } },
    { id: 'extension', require: { extension: true } },
    { id: 'content-type', a2a_error: 'CONTENT_TYPE_NOT_SUPPORTED' },
    { id: 'method', a2a_error: 'METHOD_NOT_FOUND' },
    { id: 'html-503', http: { status: 503, headers: { 'content-type': 'text/html', 'retry-after': '2' }, body: '<html>busy</html>' } },
    { id: 'json-429', http: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '7' }, body: RATE_LIMITED_1_3_BODY } },
    { id: 'reset', network: 'reset' },
    { id: 'malformed', network: 'malformed_json' },
    { id: 'stream-error', stream: { error_after: 0 } },
  ].map((rule) => ({ ...rule, when: { probability: 0 } })),
};

interface Case {
  rule: string;
  /** A tap pattern over the reading (classes and regexps allowed). */
  expect: (profile: Profile) => Record<string, unknown>;
  /** Only through aapFetch (the SDK drops these). */
  kept?: Partial<AapErrorReading>;
  stream?: boolean;
  /** The exception reads as the wire envelope does. */
  sameAsWire?: boolean;
}

const rpc = (code: keyof typeof AAP_CODE_TABLE) => (p: Profile) => AAP_CODE_TABLE[code].rpc[p];
const cases: Case[] = [
  {
    rule: 'rate',
    expect: (p) => ({ kind: 'aap', code: 'RATE_LIMITED', jsonRpcCode: rpc('RATE_LIMITED')(p), retryable: true, retryAfterMs: 1500 }),
    kept: { httpStatus: 200 },
    sameAsWire: true,
  },
  {
    rule: 'validation',
    expect: (p) => ({
      kind: 'aap',
      code: 'SCHEMA_VALIDATION_FAILED',
      jsonRpcCode: rpc('SCHEMA_VALIDATION_FAILED')(p),
      retryable: false,
      errors: [{ instanceLocation: String, keyword: String }],
    }),
    sameAsWire: true,
  },
  { rule: 'internal-final', expect: () => ({ kind: 'aap', code: 'INTERNAL_ERROR', jsonRpcCode: -32603, retryable: false }), sameAsWire: true },
  { rule: 'shuffled', expect: () => ({ kind: 'aap', code: 'VEHICLE_UNAVAILABLE', jsonRpcCode: -32000, retryable: false }), sameAsWire: true },
  {
    rule: 'extension',
    expect: () => ({ kind: 'a2a', code: 'EXTENSION_SUPPORT_REQUIRED', jsonRpcCode: -32008, extensionUri: /^https:\/\//, requiredHeader: 'A2A-Extensions' }),
    sameAsWire: true,
  },
  { rule: 'content-type', expect: () => ({ kind: 'a2a', code: 'CONTENT_TYPE_NOT_SUPPORTED', jsonRpcCode: -32005, retryable: false }), sameAsWire: true },
  { rule: 'method', expect: () => ({ kind: 'a2a', code: 'METHOD_NOT_FOUND', jsonRpcCode: -32601, retryable: false }), sameAsWire: true },
  { rule: 'html-503', expect: () => ({ kind: 'transport', httpStatus: 503, retryable: true }), kept: { retryAfterMs: 2000 } },
  {
    rule: 'json-429',
    expect: () => ({ kind: 'aap', code: 'RATE_LIMITED', jsonRpcCode: -32002, retryable: true }),
    kept: { httpStatus: 429, retryAfterMs: 7000 },
  },
  { rule: 'reset', expect: () => ({ kind: 'transport', retryable: true, code: /^(ECONNRESET|UND_ERR_SOCKET|EPIPE)$/ }) },
  { rule: 'malformed', expect: () => ({ kind: 'transport', retryable: true }), kept: { httpStatus: 200 } },
  { rule: 'stream-error', stream: true, expect: () => ({ kind: 'aap', code: 'INTERNAL_ERROR', jsonRpcCode: -32603, retryable: true }) },
];

/** A fetch that remembers each JSON-RPC reply's body, as the wire carried it. */
function recording(bodies: string[]): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST') bodies.push(await res.clone().text());
    return res;
  };
}

async function clientFor(url: string, fetchImpl: FetchLike): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(url);
}

/** Calls with the rule forced; every call but the activation case activates the profile's extension (2.0 requires it). */
async function thrownBy(client: Client, profile: Profile, rule: string, stream: boolean): Promise<unknown> {
  const request = SendMessageRequest.fromJSON(skillRequestJson('inventory.search', { filters: { make: ['Honda'] } }));
  const headers: Record<string, string> = { 'x-aap-chaos': rule };
  if (rule !== 'extension') headers['A2A-Extensions'] = extensionUriForProfile(profile);
  const options = { serviceParameters: headers };
  try {
    if (stream) for await (const event of client.sendMessageStream(request, options)) void event;
    else await client.sendMessage(request, options);
  } catch (error) {
    return error;
  }
  throw new Error(`rule ${rule}: the call did not fail`);
}

const comparable = ({ httpStatus: _h, notFound: _n, ...rest }: AapErrorReading) => rest;

async function runProfile(t: Test, profile: Profile): Promise<void> {
  const chaos = await startChaos({ scenario: JSON.stringify(scenario), profile, allowHeaderFaults: true, mock: { streaming: true } });
  t.teardown(() => chaos.close());
  const bodies: string[] = [];
  const plain = await clientFor(chaos.url, recording(bodies));
  const kept = await clientFor(chaos.url, aapFetch(recording([])));
  for (const c of cases) {
    bodies.length = 0;
    const error = await thrownBy(plain, profile, c.rule, c.stream === true);
    const reading = readAapError(error);
    t.match(reading, c.expect(profile), `${c.rule}: the SDK's ${(error as Error).constructor.name} reads right`);
    if (c.sameAsWire) t.same(comparable(reading), comparable(readAapError(bodies[0])), `${c.rule}: the same as the envelope on the wire`);
    const throughAapFetch = readAapError(await thrownBy(kept, profile, c.rule, c.stream === true));
    t.match(throughAapFetch, { ...c.expect(profile), ...c.kept }, `${c.rule}: through aapFetch`);
    for (const [field, value] of Object.entries(c.kept ?? {})) {
      if (field === 'httpStatus' && c.rule === 'json-429') continue;
      t.not(reading[field as keyof AapErrorReading], value, `${c.rule}: without aapFetch the SDK loses ${field}`);
    }
  }
}

for (const profile of PROFILES) t.test(`profile ${profile}: each error the proxy injects, as the SDK throws it`, (t) => runProfile(t, profile));
