// retryPolicy: one reading in, one decision out, table by table.
import t from 'tap';
import { readAapError, retryPolicy, type AapErrorReading, type RetryContext } from '../../src/buyer/index.js';
import { buildAapError, buildExtensionRequired } from '../../src/protocol/envelopes.js';
import { AAP_CODES, AAP_CODE_TABLE, AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, PROFILES, VALIDATION_CODES } from '../../src/protocol/codes.js';
import { SeededRandom } from '../../src/common/random.js';

const reading = (partial: Partial<AapErrorReading>): AapErrorReading => ({ kind: 'aap', retryable: false, message: '', notFound: [], ...partial });
const first: RetryContext = { attempt: 1 };

t.test('every AAP code in both profiles: retryable ones retry, the others fix or stop', async (t) => {
  const policy = retryPolicy({ random: () => 0.5 });
  for (const profile of PROFILES) {
    for (const code of AAP_CODES) {
      const decision = policy.decide(readAapError(buildAapError(profile, code, 1)), first);
      const expected = AAP_CODE_TABLE[code].retryable ? 'retry' : VALIDATION_CODES.has(code) ? 'fix' : 'stop';
      t.equal(decision.action, expected, `${profile} ${code}: ${decision.reason}`);
      const flipped = policy.decide(readAapError(buildAapError(profile, code, 1, { retryable: !AAP_CODE_TABLE[code].retryable })), first);
      t.equal(flipped.action === 'retry', !AAP_CODE_TABLE[code].retryable, `${profile} ${code} with retryable overridden: ${flipped.action}`);
    }
  }
});

t.test('the retry hint when there is one, unless it is longer than the buyer waits', async (t) => {
  const policy = retryPolicy({ maxRetryAfterMs: 5000 });
  t.match(policy.decide(reading({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1500 }), first), { action: 'retry', afterMs: 1500 });
  t.match(
    policy.decide(reading({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1500 }), { attempt: 4 }),
    { action: 'retry', afterMs: 1500 },
    'the hint, not the backoff, at any attempt',
  );
  t.match(policy.decide(reading({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 50_000 }), first), { action: 'stop', reason: /50000 ms/ });
});

t.test('full jitter: each wait in [0, min(cap, base·2^(n-1))); equal jitter: in its upper half', async (t) => {
  const random = new SeededRandom(42);
  const full = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: 10, random: () => random.next() });
  const equal = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: 10, jitter: 'equal', random: () => random.next() });
  const internal = reading({ code: 'INTERNAL_ERROR', retryable: true });
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 8; attempt++) {
    const ceiling = Math.min(1000, 100 * 2 ** (attempt - 1));
    for (let i = 0; i < 50; i++) {
      const f = full.decide(internal, { attempt });
      const e = equal.decide(internal, { attempt });
      if (f.action !== 'retry' || e.action !== 'retry') return t.fail('expected retries');
      if (f.afterMs < 0 || f.afterMs > ceiling) t.fail(`full jitter ${f.afterMs} outside [0, ${ceiling}] at attempt ${attempt}`);
      if (e.afterMs < ceiling / 2 || e.afterMs > ceiling) t.fail(`equal jitter ${e.afterMs} outside [${ceiling / 2}, ${ceiling}] at attempt ${attempt}`);
      waits.push(f.afterMs);
    }
  }
  t.ok(new Set(waits).size > 100, 'full jitter spreads the waits');
  t.ok(Math.max(...waits) <= 1000, 'the cap holds');
  t.ok(
    waits.slice(0, 50).some((w) => w < 50),
    'full jitter may wait almost nothing',
  );
});

t.test('a bound on attempts', async (t) => {
  const policy = retryPolicy({ maxAttempts: 3 });
  const internal = reading({ code: 'INTERNAL_ERROR', retryable: true });
  t.equal(policy.decide(internal, { attempt: 2 }).action, 'retry');
  t.match(policy.decide(internal, { attempt: 3 }), { action: 'stop', reason: /gave up after 3 attempts/ });
  t.equal(policy.decide(readAapError(new TypeError('fetch failed')), { attempt: 3 }).action, 'stop', 'no answer is bounded too');
});

t.test('activation only for a URI the buyer implements, and only once', async (t) => {
  const policy = retryPolicy({ supportedExtensions: [AAP_EXTENSION_URI_1_3] });
  const asks13 = readAapError(buildExtensionRequired(AAP_EXTENSION_URI_1_3, 1));
  t.match(policy.decide(asks13, first), { action: 'activate', extensionUri: AAP_EXTENSION_URI_1_3, header: 'A2A-Extensions' });
  t.match(policy.decide(asks13, { attempt: 2, activeExtensions: [AAP_EXTENSION_URI_1_3] }), { action: 'stop', reason: /already active/ });
  t.match(policy.decide(readAapError(buildExtensionRequired(AAP_EXTENSION_URI_2_0_DRAFT, 1)), first), { action: 'stop', reason: /does not implement/ });
  t.match(retryPolicy().decide(asks13, first), { action: 'stop' }, 'a buyer that names no extension activates none');
  t.match(policy.decide(reading({ kind: 'a2a', jsonRpcCode: -32008 }), first), { action: 'stop', reason: /did not name it/ });
});

t.test("a dealer's header name is not passed on: activation is in A2A-Extensions, or not at all", async (t) => {
  const policy = retryPolicy({ supportedExtensions: [AAP_EXTENSION_URI_1_3] });
  const base = { kind: 'a2a' as const, jsonRpcCode: -32008, extensionUri: AAP_EXTENSION_URI_1_3 };
  t.match(policy.decide(reading({ ...base, requiredHeader: 'a2a-extensions' }), first), { action: 'activate', header: 'A2A-Extensions' });
  for (const header of ['Authorization', 'Cookie', 'x-evil\r\nset-cookie: a=b']) {
    const decision = policy.decide(reading({ ...base, requiredHeader: header }), first);
    t.match(decision, { action: 'stop', reason: /A2A-Extensions only/ }, JSON.stringify(header));
    t.notMatch(decision.reason, /\r|\n/, 'the reason stays one line');
  }
});

t.test('a retry hint past any number is read as a long finite one, and stops', async (t) => {
  for (const details of [{ retry_after_seconds: 1e308 }, { retry_after_ms: 1e308 }, { retry_after_seconds: Number.MAX_VALUE }]) {
    const read = readAapError({ code: -32002, message: 'slow down', data: { type: 'aap.error', code: 'RATE_LIMITED', retryable: true, details } });
    t.ok(Number.isSafeInteger(read.retryAfterMs), `${JSON.stringify(details)} → ${read.retryAfterMs}`);
    t.match(retryPolicy().decide(read, first), { action: 'stop', reason: /more than maxRetryAfterMs/ });
  }
});

t.test('validation errors: fix these fields; without fields: stop', async (t) => {
  const policy = retryPolicy();
  const errors = [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' }];
  t.match(policy.decide(reading({ code: 'SCHEMA_VALIDATION_FAILED', errors }), first), { action: 'fix', errors });
  t.match(policy.decide(reading({ code: 'SCHEMA_VALIDATION_FAILED', errors: [] }), first), { action: 'stop' });
  t.match(
    policy.decide(reading({ code: 'SCHEMA_VALIDATION_FAILED', errors, retryable: true }), first),
    { action: 'retry' },
    "the dealer's retryable: true is honoured",
  );
});

t.test('lead.submit: resent with the same idempotency key, never without one', async (t) => {
  const policy = retryPolicy();
  const internal = reading({ code: 'INTERNAL_ERROR', retryable: true });
  t.match(policy.decide(internal, { attempt: 1, skill: 'lead.submit', data: { idempotency_key: 'k-1' } }), { action: 'retry', idempotencyKey: 'k-1' });
  t.match(policy.decide(readAapError(new TypeError('fetch failed')), { attempt: 1, skill: 'lead.submit', data: { idempotency_key: 'k-1' } }), {
    action: 'retry',
    idempotencyKey: 'k-1',
  });
  t.match(policy.decide(internal, { attempt: 1, skill: 'lead.submit', data: {} }), { action: 'stop', reason: /idempotency_key/ });
  t.match(policy.decide(reading({ code: 'IDEMPOTENCY_CONFLICT' }), { attempt: 1, skill: 'lead.submit', data: { idempotency_key: 'k-1' } }), { action: 'stop' });
});

t.test('transport failures: retry unless the status says the request itself is wrong', async (t) => {
  const policy = retryPolicy({ random: () => 0 });
  t.equal(policy.decide(readAapError({ status: 503, headers: { 'retry-after': '1' } }), first).action, 'retry');
  t.match(policy.decide(readAapError({ status: 503, headers: { 'retry-after': '1' } }), first), { afterMs: 1000 });
  t.equal(policy.decide(readAapError({ status: 404 }), first).action, 'stop');
});

t.test('options are checked', async (t) => {
  t.throws(() => retryPolicy({ maxAttempts: 0 }), /maxAttempts must be a whole number ≥ 1/);
  t.throws(() => retryPolicy({ baseDelayMs: -1 }), /baseDelayMs/);
  t.throws(() => retryPolicy({ jitter: 'none' as never }), /jitter/);
});
