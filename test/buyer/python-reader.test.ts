// examples/python-buyer/aap_errors.py is the same reader as readAapError: every envelope the
// builders emit, and hostile ones, read the same in both; its tables are those of codes.ts; and
// urllib's own failures read as transport errors with their HTTP facts.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readAapError, type AapErrorReading } from '../../src/buyer/index.js';
import { applyEnvelopeFaults } from '../../src/protocol/envelope-faults.js';
import { buildA2aError, buildAapError, buildExtensionRequired, buildVersionNotSupported } from '../../src/protocol/envelopes.js';
import {
  A2A_ERROR_NAMES,
  A2A_ERROR_TABLE,
  AAP_CODES,
  AAP_CODE_TABLE,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  AAP_EXTENSION_URI_1_3,
  AAP_EXTENSION_URI_2_0_DRAFT,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  EXTENSIONS_HEADER,
  PROFILES,
  RETRY_INFO_TYPE,
  VALIDATION_CODES,
} from '../../src/protocol/codes.js';

t.setTimeout(120_000);

const MODULE_DIR = fileURLToPath(new URL('../../examples/python-buyer/', import.meta.url));
const SCRIPT = `${MODULE_DIR}aap_errors.py`;

function pythonMissing(): string | false {
  try {
    if (execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim()) return false;
  } catch {
    /* not found */
  }
  return 'needs python3 on PATH (apt-get install -y python3)';
}
const skip = pythonMissing();

function python(args: string[], input = ''): string {
  const run = spawnSync('python3', args, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, cwd: MODULE_DIR });
  if (run.status !== 0) throw new Error(`python3 ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** Readings compared field by field; of notFound, which fields (the wording is each reader's own). */
const comparable = (r: AapErrorReading) => ({ ...r, notFound: r.notFound.map((n) => n.field) });

function corpus(): [string, unknown][] {
  const cases: [string, unknown][] = [];
  for (const profile of PROFILES) {
    for (const code of AAP_CODES) {
      const envelope = buildAapError(profile, code, 1);
      cases.push([`${profile} ${code}`, envelope], [`${profile} ${code} as text`, JSON.stringify(envelope)]);
      cases.push([`${profile} ${code} overridden`, buildAapError(profile, code, 1, { retryable: !AAP_CODE_TABLE[code].retryable })]);
      cases.push([`${profile} ${code} shuffled and padded`, applyEnvelopeFaults(envelope, { shuffle: true, unknown_detail: true }, profile, () => 0.3).reply]);
      cases.push([`${profile} ${code} on an HTTP 500`, { status: 500, headers: { 'Retry-After': '4' }, body: JSON.stringify(envelope) }]);
    }
    cases.push([`${profile} hint in seconds`, buildAapError(profile, 'RATE_LIMITED', 1, { retryAfterSeconds: 2 })]);
  }
  for (const name of A2A_ERROR_NAMES)
    cases.push([name, name === 'EXTENSION_SUPPORT_REQUIRED' ? buildExtensionRequired(AAP_EXTENSION_URI_1_3, 'x') : buildA2aError(name, 'x')]);
  cases.push(
    ['-32009', buildVersionNotSupported('0.3', 1)],
    ['-32008 named in the message only', { error: { code: -32008, message: `Activate ${AAP_EXTENSION_URI_1_3} in the A2A-Extensions header.` } }],
  );
  const rate = buildAapError('2.0', 'RATE_LIMITED', 1);
  const data = rate.error.data as Record<string, unknown>[];
  cases.push(
    ['data a string', { error: { code: -32000, message: 'm', data: 'x' } }],
    ['data null', { error: { code: -32603, message: 'm', data: null } }],
    ['a bare -32603', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }],
    ['a -32603 whose data is a number', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error', data: 500 } }],
    ['junk entries', { error: { code: -32000, message: 'm', data: [[1], null, 3, 'x'] } }],
    ['no @type anywhere', { ...rate, error: { ...rate.error, data: data.map(({ ['@type']: _t, ...rest }) => rest) } }],
    ['metadata numbers, no payload', { ...rate, error: { ...rate.error, data: [{ ...data[0], metadata: { code: 7, retryable: true, error_id: 1 } }] } }],
    ['metadata retryable "yes"', { ...rate, error: { ...rate.error, data: [{ ...data[0], metadata: { code: 'RATE_LIMITED', retryable: 'yes' } }] } }],
    [
      'RetryInfo',
      {
        error: {
          code: -32000,
          message: 'm',
          data: [
            { '@type': RETRY_INFO_TYPE, retryDelay: '1.5s' },
            { ...data.at(-1), details: {} },
          ],
        },
      },
    ],
    [
      'hints of the wrong type',
      { error: { code: -32000, message: 'm', data: { type: 'aap.error', code: 'RATE_LIMITED', retryable: true, details: { retry_after_ms: '9' } } } },
    ],
    [
      'broken field errors',
      {
        error: {
          code: -32602,
          message: 'm',
          data: {
            type: 'aap.error',
            code: 'SCHEMA_VALIDATION_FAILED',
            retryable: false,
            details: { errors: [{ instanceLocation: '/a', keyword: 'k', error: 'e' }, { keyword: 1 }] },
          },
        },
      },
    ],
    [
      'BadRequest only',
      {
        error: {
          code: -32602,
          message: 'm',
          data: [
            {
              '@type': BAD_REQUEST_TYPE,
              fieldViolations: [
                { field: '/a', description: 'type: must be a string' },
                { field: '/b', description: 'no keyword here' },
              ],
            },
          ],
        },
      },
    ],
    ['a 1 MB message', buildAapError('1.3', 'INTERNAL_ERROR', 1, { message: 'x'.repeat(1024 * 1024) })],
    ['200 entries', { error: { code: -32000, message: 'm', data: [...Array.from({ length: 200 }, () => ({ '@type': 'x' })), data.at(-1)] } }],
    ['a string code', { error: { code: '-32000', message: 'm' } }],
    ['a success', { jsonrpc: '2.0', id: 1, result: {} }],
    ['null', null],
    ['a number', 5],
    ['HTML', '<html>502</html>'],
    ['an HTTP 503 without a body', { status: 503, headers: { 'retry-after': '2' } }],
    ['an HTTP 404 with HTML', { status: 404, body: '<html>nope</html>' }],
  );
  return cases;
}

t.test('the Python reader reads every case exactly as readAapError does', { skip }, async (t) => {
  const cases = corpus();
  const out = python([SCRIPT], cases.map(([, value]) => JSON.stringify(value)).join('\n') + '\n')
    .trim()
    .split('\n');
  t.equal(out.length, cases.length, 'one reading per case');
  for (const [i, [name, value]] of cases.entries()) {
    const fromPython = JSON.parse(out[i]!) as AapErrorReading;
    t.same(comparable(fromPython), comparable(readAapError(value)), name);
  }
});

t.test("the Python reader's tables are those of src/protocol/codes.ts", { skip }, async (t) => {
  const tables = JSON.parse(python([SCRIPT, '--tables']));
  t.same(tables, {
    types: [AAP_ERROR_TYPE_URL, ERROR_INFO_TYPE, BAD_REQUEST_TYPE, RETRY_INFO_TYPE],
    aap_domain: AAP_ERROR_DOMAIN,
    extensions_header: EXTENSIONS_HEADER,
    extension_uris: [AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT],
    aap_retryable: Object.fromEntries(AAP_CODES.map((c) => [c, AAP_CODE_TABLE[c].retryable])),
    validation_codes: [...VALIDATION_CODES].sort(),
    a2a_codes: Object.fromEntries(A2A_ERROR_NAMES.map((n) => [n, A2A_ERROR_TABLE[n].code])),
  });
});

const URLLIB_FAILURES = String.raw`
import email.message, io, json, socket, urllib.error
from aap_errors import read_aap_error

def http_error(status, body, **headers):
    h = email.message.Message()
    for k, v in headers.items():
        h[k.replace("_", "-")] = v
    return urllib.error.HTTPError("http://127.0.0.1/a2a", status, "x", h, io.BytesIO(body))

class Hostile(dict):
    def get(self, *a):
        raise RuntimeError("boom")

cases = [
    http_error(503, b"<html>busy</html>", Retry_After="3"),
    http_error(429, json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "slow", "data": {"type": "aap.error", "code": "RATE_LIMITED", "retryable": True, "error_id": "e"}}}).encode(), Retry_After="7"),
    ConnectionResetError(104, "Connection reset by peer"),
    urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
    socket.timeout("timed out"),
    Hostile(error={"code": 1}),
]
for case in cases:
    print(json.dumps(read_aap_error(case)))
`;

t.test("urllib's own failures: HTTP errors keep status and Retry-After, socket errors their errno name, nothing raises", { skip }, async (t) => {
  const [html503, rpc429, reset, refused, timeout, hostile] = python(['-c', URLLIB_FAILURES])
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AapErrorReading);
  t.match(html503, { kind: 'transport', httpStatus: 503, retryable: true, retryAfterMs: 3000 });
  t.match(rpc429, { kind: 'aap', code: 'RATE_LIMITED', jsonRpcCode: -32002, httpStatus: 429, retryable: true, retryAfterMs: 7000 });
  t.match(reset, { kind: 'transport', retryable: true, code: 'ECONNRESET' });
  t.match(refused, { kind: 'transport', retryable: true, code: 'ECONNREFUSED' });
  t.match(timeout, { kind: 'transport', retryable: true });
  t.match(hostile, { kind: 'transport', retryable: false, message: 'unreadable error value' });
});
