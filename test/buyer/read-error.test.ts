// readAapError over every envelope aap-chaos can emit (the real builders, both profiles), the same
// envelopes as the SDK's own converter turns them into exceptions, and hostile input.
import t from 'tap';
import { fromJsonRpcErrorResponse } from '@a2a-js/sdk/errors';
import { readAapError, type AapErrorReading } from '../../src/buyer/index.js';
import { MAX_MESSAGE_CHARS } from '../../src/buyer/reading.js';
import { applyEnvelopeFaults, UNKNOWN_DETAIL_TYPE } from '../../src/protocol/envelope-faults.js';
import {
  buildA2aError,
  buildAapError,
  buildExtensionRequired,
  buildRequestRefused,
  buildUpstreamUnreachable,
  buildVersionNotSupported,
  type AapErrorPayload,
  type JsonRpcErrorResponse,
} from '../../src/protocol/envelopes.js';
import {
  A2A_ERROR_NAMES,
  A2A_ERROR_TABLE,
  AAP_CODES,
  AAP_CODE_TABLE,
  AAP_ERROR_TYPE_URL,
  AAP_EXTENSION_URI_2_0_DRAFT,
  ERROR_INFO_TYPE,
  PROFILES,
  VALIDATION_CODES,
  type AapCode,
  type Profile,
} from '../../src/protocol/codes.js';

const fields = (r: AapErrorReading) => r.notFound.map((n) => n.field);

/** The payload as the builder put it on the wire, found the way the project's own tests do. */
function payloadOf(envelope: JsonRpcErrorResponse): AapErrorPayload {
  const data = envelope.error.data;
  return (Array.isArray(data) ? data.find((e) => (e as { '@type'?: string })['@type'] === AAP_ERROR_TYPE_URL) : data) as AapErrorPayload;
}

/** What a reader must see in an AAP envelope, from the builder's own payload. */
function expectedAap(profile: Profile, code: AapCode, envelope: JsonRpcErrorResponse): Partial<AapErrorReading> {
  const payload = payloadOf(envelope);
  const expected: Partial<AapErrorReading> = {
    kind: 'aap',
    jsonRpcCode: AAP_CODE_TABLE[code].rpc[profile],
    code,
    retryable: payload.retryable,
    errorId: payload.error_id,
    message: payload.message,
  };
  if (VALIDATION_CODES.has(code)) expected.errors = payload.details!.errors as AapErrorReading['errors'];
  if (code === 'RATE_LIMITED') expected.retryAfterMs = payload.details!.retry_after_ms as number;
  return expected;
}

/** The forms one envelope reaches a buyer in: raw, as text, its error member, and the SDK's exception. */
function forms(envelope: JsonRpcErrorResponse): [string, unknown][] {
  return [
    ['the envelope', envelope],
    ['its JSON text', JSON.stringify(envelope)],
    ['its error member', envelope.error],
    ['the SDK exception', fromJsonRpcErrorResponse(envelope as never)],
  ];
}

for (const profile of PROFILES) {
  t.test(`${profile}: each of the 12 AAP codes, in every form, shuffled and padded, with its retryable overridden`, async (t) => {
    for (const code of AAP_CODES) {
      const envelope = buildAapError(profile, code, 7);
      for (const [form, value] of forms(envelope)) {
        const reading = readAapError(value);
        t.match(reading, expectedAap(profile, code, envelope), `${code} as ${form}`);
        t.notOk(fields(reading).includes('code'), `${code} as ${form}: the code was found`);
      }
      for (const faults of [{ shuffle: true }, { unknown_detail: true }, { shuffle: true, unknown_detail: true }]) {
        const { reply } = applyEnvelopeFaults(envelope, faults, profile, () => 0.99);
        t.match(readAapError(reply), expectedAap(profile, code, envelope), `${code} with ${JSON.stringify(faults)}`);
      }
      const flipped = buildAapError(profile, code, 7, { retryable: !AAP_CODE_TABLE[code].retryable });
      t.equal(readAapError(flipped).retryable, !AAP_CODE_TABLE[code].retryable, `${code}: the dealer's retryable wins over the table default`);
      t.equal(readAapError(fromJsonRpcErrorResponse(flipped as never)).retryable, !AAP_CODE_TABLE[code].retryable, `${code}: also through the SDK`);
    }
  });

  t.test(`${profile}: retry hints in ms or in seconds`, async (t) => {
    t.equal(readAapError(buildAapError(profile, 'RATE_LIMITED', 1, { retryAfterMs: 2500 })).retryAfterMs, 2500);
    t.equal(readAapError(buildAapError(profile, 'RATE_LIMITED', 1, { retryAfterSeconds: 3 })).retryAfterMs, 3000);
    const internal = readAapError(buildAapError(profile, 'INTERNAL_ERROR', 1));
    t.equal(internal.retryAfterMs, undefined);
    t.ok(fields(internal).includes('retryAfterMs'), 'a retryable error without a hint says so');
    const proxy = readAapError(buildUpstreamUnreachable(profile, 1, 'connect ECONNREFUSED'));
    t.match(proxy, { kind: 'aap', code: 'INTERNAL_ERROR', retryable: true, jsonRpcCode: -32603 });
  });
}

t.test('every A2A error in A2A shape: kind a2a, the reason as code, no AAP payload invented', async (t) => {
  for (const name of A2A_ERROR_NAMES) {
    const envelope = name === 'EXTENSION_SUPPORT_REQUIRED' ? buildExtensionRequired(AAP_EXTENSION_URI_2_0_DRAFT, 'r-1') : buildA2aError(name, 'r-1');
    for (const [form, value] of forms(envelope)) {
      const reading = readAapError(value);
      t.match(reading, { kind: 'a2a', code: name, jsonRpcCode: A2A_ERROR_TABLE[name].code, message: envelope.error.message }, `${name} as ${form}`);
      t.equal(reading.retryable, name === 'INTERNAL_ERROR', `${name}: retryable only for an internal error`);
      t.equal(reading.errorId, undefined);
    }
  }
  t.match(readAapError(buildVersionNotSupported(undefined, 1)), { kind: 'a2a', code: 'VERSION_NOT_SUPPORTED', jsonRpcCode: -32009 });
  t.match(readAapError(buildRequestRefused('body too large')), { kind: 'a2a', code: 'INVALID_REQUEST', jsonRpcCode: -32600, retryable: false });
});

t.test('-32008: the URI and header from metadata, else from the message, else said to be missing', async (t) => {
  const envelope = buildExtensionRequired(AAP_EXTENSION_URI_2_0_DRAFT, 3);
  t.match(readAapError(envelope), { extensionUri: AAP_EXTENSION_URI_2_0_DRAFT, requiredHeader: 'A2A-Extensions' });
  const bare = { jsonrpc: '2.0', id: 3, error: { code: -32008, message: envelope.error.message } };
  t.match(readAapError(bare), { extensionUri: AAP_EXTENSION_URI_2_0_DRAFT, requiredHeader: 'A2A-Extensions', code: 'EXTENSION_SUPPORT_REQUIRED' });
  const silent = readAapError({ jsonrpc: '2.0', id: 3, error: { code: -32008, message: 'Extension support required' } });
  t.equal(silent.extensionUri, undefined);
  t.ok(fields(silent).includes('extensionUri') && fields(silent).includes('requiredHeader'));
});

t.test('2.0 without the typed payload: the AAP ErrorInfo and BadRequest still give code, retryable, id and fields', async (t) => {
  const envelope = buildAapError('2.0', 'SCHEMA_VALIDATION_FAILED', 1, {
    errors: [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' }],
  });
  const data = (envelope.error.data as Record<string, unknown>[]).filter((e) => e['@type'] !== AAP_ERROR_TYPE_URL);
  const reading = readAapError({ ...envelope, error: { ...envelope.error, data } });
  t.match(reading, {
    kind: 'aap',
    code: 'SCHEMA_VALIDATION_FAILED',
    retryable: false,
    errorId: payloadOf(envelope).error_id,
    errors: [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' }],
  });
  t.ok(fields(reading).includes('payload'), 'says the payload was missing');
});

/** A 2.0 envelope with one thing changed. */
function twoPointOh(change: (data: Record<string, any>[]) => unknown, code: AapCode = 'RATE_LIMITED'): unknown {
  const envelope = buildAapError('2.0', code, 1);
  return { ...envelope, error: { ...envelope.error, data: change(structuredClone(envelope.error.data) as Record<string, any>[]) } };
}

const payloadIndex = (data: Record<string, any>[]) => data.findIndex((e) => e['@type'] === AAP_ERROR_TYPE_URL);
const infoIndex = (data: Record<string, any>[]) => data.findIndex((e) => e['@type'] === ERROR_INFO_TYPE);

const hostile: { name: string; value: () => unknown; expect: Partial<AapErrorReading>; notFound?: string[] }[] = [
  {
    name: 'data is a string',
    value: () => ({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'm', data: 'RATE_LIMITED' } }),
    expect: { kind: 'a2a', retryable: false, jsonRpcCode: -32000 },
    notFound: ['data', 'code'],
  },
  {
    name: 'data is a number',
    value: () => ({ error: { code: -32602, message: 'm', data: 42 } }),
    expect: { kind: 'a2a', code: 'INVALID_PARAMS', retryable: false },
    notFound: ['data'],
  },
  {
    name: 'a bare -32603 (data null) names no AAP code',
    value: () => ({ error: { code: -32603, message: 'm', data: null } }),
    expect: { kind: 'a2a', jsonRpcCode: -32603, code: undefined, retryable: false },
    notFound: ['data', 'payload', 'code', 'retryable'],
  },
  {
    name: 'a bare -32603 without data names no AAP code',
    value: () => ({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }),
    expect: { kind: 'a2a', jsonRpcCode: -32603, code: undefined, retryable: false },
    notFound: ['payload', 'code', 'retryable'],
  },
  {
    name: 'a -32603 whose data is a number names no AAP code',
    value: () => ({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error', data: 500 } }),
    expect: { kind: 'a2a', jsonRpcCode: -32603, code: undefined, retryable: false },
    notFound: ['data', 'payload', 'code', 'retryable'],
  },
  {
    name: 'data entries are arrays, nulls and numbers',
    value: () => ({ error: { code: -32000, message: 'm', data: [[1], null, 3, 'x'] } }),
    expect: { kind: 'a2a', retryable: false },
    notFound: ['code'],
  },
  {
    name: 'entries without @type (the payload too)',
    value: () => twoPointOh((d) => d.map(({ ['@type']: _drop, ...rest }) => rest)),
    expect: { kind: 'aap', code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1000 },
    notFound: ['@type'],
  },
  {
    name: 'the payload under an unknown @type is ignored',
    value: () => twoPointOh((d) => d.map((e) => (e['@type'] === AAP_ERROR_TYPE_URL ? { ...e, '@type': UNKNOWN_DETAIL_TYPE } : e))),
    expect: { kind: 'aap', code: 'RATE_LIMITED', retryable: true },
    notFound: ['payload', 'retryAfterMs'],
  },
  {
    name: 'metadata numbers and booleans where the seed says strings (no payload to fall back on)',
    value: () =>
      twoPointOh((d) => {
        d[infoIndex(d)]!.metadata = { code: 7, error_id: 123, retryable: true, created_at: 0 };
        d.splice(payloadIndex(d), 1);
        return d;
      }),
    expect: { kind: 'aap', code: 'RATE_LIMITED', retryable: true, errorId: undefined },
    notFound: ['metadata.code', 'metadata.error_id', 'metadata.retryable', 'retryable', 'errorId'],
  },
  {
    name: 'metadata.retryable "yes"',
    value: () =>
      twoPointOh((d) => {
        d[infoIndex(d)]!.metadata.retryable = 'yes';
        d.splice(payloadIndex(d), 1);
        return d;
      }, 'VEHICLE_NOT_FOUND'),
    expect: { kind: 'aap', code: 'VEHICLE_NOT_FOUND', retryable: false },
    notFound: ['metadata.retryable', 'retryable'],
  },
  {
    name: 'the payload\'s retryable is a string: metadata\'s "true" is used',
    value: () => twoPointOh((d) => ((d[payloadIndex(d)]!.retryable = 'false'), d)),
    expect: { kind: 'aap', code: 'RATE_LIMITED', retryable: true },
    notFound: ['retryable'],
  },
  {
    name: 'retry hints that are no numbers of ms',
    value: () => twoPointOh((d) => ((d[payloadIndex(d)]!.details = { retry_after_ms: '1500', retry_after_seconds: -2 }), d)),
    expect: { kind: 'aap', code: 'RATE_LIMITED', retryable: true, retryAfterMs: undefined },
    notFound: ['retryAfterMs'],
  },
  {
    name: 'details.errors with broken entries',
    value: () =>
      twoPointOh(
        (d) => ((d[payloadIndex(d)]!.details = { errors: [{ instanceLocation: '/a', keyword: 'type', error: 'x' }, { instanceLocation: 5 }, null] }), d),
        'SCHEMA_VALIDATION_FAILED',
      ),
    expect: { kind: 'aap', code: 'SCHEMA_VALIDATION_FAILED', errors: [{ instanceLocation: '/a', keyword: 'type', error: 'x' }] },
    notFound: ['errors'],
  },
  { name: 'the code is a string', value: () => ({ error: { code: '-32000', message: 'm' } }), expect: { kind: 'transport', retryable: false } },
  { name: 'a JSON-RPC success', value: () => ({ jsonrpc: '2.0', id: 1, result: {} }), expect: { kind: 'transport', retryable: false } },
  { name: 'undefined', value: () => undefined, expect: { kind: 'transport', retryable: false } },
  { name: 'a number', value: () => 5, expect: { kind: 'transport', retryable: false } },
  { name: 'text that is not JSON', value: () => '<html>502</html>', expect: { kind: 'transport', retryable: false } },
  {
    name: 'a 5 MB JSON text is not parsed',
    value: () => `{"error":{"code":-32000,"message":"${'x'.repeat(5 * 1024 * 1024)}"}}`,
    expect: { kind: 'transport', retryable: false },
  },
  {
    name: 'a getter that throws',
    value: () => ({
      get error(): never {
        throw new Error('boom');
      },
    }),
    expect: { kind: 'transport', retryable: false, message: 'unreadable error value' },
  },
  {
    name: 'a Proxy that throws on every read',
    value: () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
          has: () => {
            throw new Error('trap');
          },
        },
      ),
    expect: { kind: 'transport', retryable: false },
  },
];

t.test('hostile envelopes: the right answer or an explicit "not found", never a throw', async (t) => {
  for (const { name, value, expect, notFound } of hostile) {
    let reading: AapErrorReading | undefined;
    t.doesNotThrow(() => (reading = readAapError(value())), name);
    t.match(reading, expect, name);
    if ('code' in expect && expect.code === undefined) t.notOk('code' in reading!, `${name}: no code at all`);
    for (const field of notFound ?? []) t.ok(fields(reading!).includes(field), `${name}: says ${field} was not found (${JSON.stringify(reading!.notFound)})`);
    t.ok(reading!.notFound.length > 0 || reading!.kind !== 'transport', `${name}: nothing missing goes unsaid`);
  }
});

t.test('a 1 MB message, in the envelope and in the payload, comes back cut and says so', async (t) => {
  const huge = 'm'.repeat(1024 * 1024);
  const envelope = buildAapError('2.0', 'INTERNAL_ERROR', 1, { message: huge });
  for (const [form, value] of forms(envelope)) {
    const reading = readAapError(value);
    t.equal(reading.code, 'INTERNAL_ERROR', form);
    t.ok(reading.message.length <= MAX_MESSAGE_CHARS + 1, `${form}: ${reading.message.length} characters`);
    t.ok(fields(reading).includes('message'), `${form}: says it was cut`);
  }
  const noisy = readAapError({ error: { code: -32008, message: `${'http'.repeat(250_000)} https://x.example/ext` } });
  t.equal(noisy.kind, 'a2a', 'a long message without a URI near its start is scanned within bounds');
});

t.test('a 100 000-entry data array is read within bounds', async (t) => {
  const envelope = buildAapError('2.0', 'RATE_LIMITED', 1);
  const data = [...(envelope.error.data as unknown[]), ...Array.from({ length: 100_000 }, () => ({ '@type': UNKNOWN_DETAIL_TYPE }))];
  const reading = readAapError({ ...envelope, error: { ...envelope.error, data } });
  t.match(reading, { code: 'RATE_LIMITED', retryable: true });
  t.ok(fields(reading).includes('data'));
});

t.test('transport failures and HTTP failures', async (t) => {
  const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  t.match(readAapError(reset), { kind: 'transport', retryable: true, code: 'UND_ERR_SOCKET', message: 'fetch failed' });
  t.match(readAapError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), { kind: 'transport', retryable: true });
  const html = new Error('HTTP error for SendMessage! Status: 502 Bad Gateway. Response: <html>502</html>', { cause: new SyntaxError('Unexpected token') });
  t.match(readAapError(html), { kind: 'transport', httpStatus: 502, retryable: true });
  t.match(readAapError(new Error('HTTP error for SendMessage! Status: 404 Not Found. Response: nope')), {
    kind: 'transport',
    httpStatus: 404,
    retryable: false,
  });
  t.match(readAapError({ status: 503, headers: { 'Retry-After': '2' }, body: '<html>busy</html>' }), {
    kind: 'transport',
    httpStatus: 503,
    retryable: true,
    retryAfterMs: 2000,
  });
  t.match(readAapError(new Response('slow down', { status: 429, headers: { 'retry-after': '3' } })), {
    kind: 'transport',
    httpStatus: 429,
    retryable: true,
    retryAfterMs: 3000,
  });
  const body = JSON.stringify(buildAapError('2.0', 'INTERNAL_ERROR', 1));
  t.match(readAapError({ status: 500, headers: {}, body }), { kind: 'aap', code: 'INTERNAL_ERROR', httpStatus: 500, retryable: true });
  const looped: { message: string; cause?: unknown } = { message: 'loop' };
  looped.cause = looped;
  t.match(readAapError(Object.assign(new Error('loop'), { cause: looped })), { kind: 'transport' }, 'a cause chain that loops ends');
});
