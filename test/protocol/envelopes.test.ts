import t from 'tap';
import {
  A2A_ERROR_NAMES,
  AAP_CODES,
  AAP_CODE_TABLE,
  A2A_ERROR_TABLE,
  PROFILES,
  AAP_EXTENSION_URI_1_3,
  AAP_EXTENSION_URI_2_0_DRAFT,
} from '../../src/protocol/codes.js';
import {
  buildA2aError,
  buildAapError,
  buildExtensionRequired,
  buildUpstreamUnreachable,
  buildVersionNotSupported,
  summarizeError,
} from '../../src/protocol/envelopes.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';

const problems = [
  { instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be an integer' },
  { instanceLocation: '/filters/make', keyword: 'additionalProperties', error: 'unknown filter key' },
];

for (const profile of PROFILES) {
  for (const code of AAP_CODES) {
    for (const id of [7, 'req-3', null] as const) {
      t.test(`${code} under ${profile}, id ${JSON.stringify(id)}`, async (t) => {
        const env = buildAapError(profile, code, id, {
          retryAfterMs: code === 'RATE_LIMITED' ? 1500 : undefined,
          errors: ['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION'].includes(code) ? problems : undefined,
        });
        t.same(envelopeProblems(profile, env), [], 'validates against the profile schema');
        t.equal(env.id, id, 'echoes the id with its type');
        t.equal(env.error.code, AAP_CODE_TABLE[code].rpc[profile], 'JSON-RPC code from the table');
        const s = summarizeError(env.error);
        t.equal(s.code, code);
        t.equal(s.retryable, AAP_CODE_TABLE[code].retryable, 'retryable default');
        t.match(s.errorId, /^err_[0-9A-Z]{26}$/);
        if (profile === '2.0') {
          const data = env.error.data as Record<string, any>[];
          t.equal(data[0]!['@type'], 'type.googleapis.com/google.rpc.ErrorInfo', 'ErrorInfo first');
          t.equal(data[0]!.reason, code);
          t.equal(data[0]!.metadata.code, code);
          t.equal(data[0]!.metadata.retryable, String(AAP_CODE_TABLE[code].retryable), 'metadata values are strings');
          const hasBadRequest = data.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
          t.equal(
            hasBadRequest,
            ['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION'].includes(code),
            'BadRequest only for validation codes',
          );
        } else {
          t.equal((env.error.data as any).type, 'aap.error', '1.3 data is the bare payload');
        }
      });
    }
  }
}

t.test('1.3 keeps its own codes for RATE_LIMITED and UNSUPPORTED_SKILL; 2.0 moves them', async (t) => {
  t.equal(buildAapError('1.3', 'RATE_LIMITED', 1, { retryAfterMs: 5 }).error.code, -32002);
  t.equal(buildAapError('2.0', 'RATE_LIMITED', 1, { retryAfterMs: 5 }).error.code, -32000);
  t.equal(buildAapError('1.3', 'UNSUPPORTED_SKILL', 1).error.code, -32601);
  t.equal(buildAapError('2.0', 'UNSUPPORTED_SKILL', 1).error.code, -32004);
});

t.test('per-instance retryable override and BadRequest mirroring details.errors', async (t) => {
  const env = buildAapError('2.0', 'SCHEMA_VALIDATION_FAILED', 1, { retryable: true, errors: problems });
  const data = env.error.data as any[];
  t.equal(data[0].metadata.retryable, 'true');
  t.same(data[1].fieldViolations, [
    { field: '/filters/year_min', description: 'type: must be an integer' },
    { field: '/filters/make', description: 'additionalProperties: unknown filter key' },
  ]);
  t.same(data[2].details.errors, problems);
  t.equal(data[2]['@type'], 'https://autoagentprotocol.org/extensions/aap/error');
});

for (const name of A2A_ERROR_NAMES.filter((n) => n !== 'EXTENSION_SUPPORT_REQUIRED')) {
  t.test(`A2A ${name} in A2A's own shape`, async (t) => {
    const env = buildA2aError(name, 'x', {});
    for (const profile of PROFILES) t.same(envelopeProblems(profile, env), [], `valid under ${profile}`);
    t.equal(env.error.code, A2A_ERROR_TABLE[name].code);
    const info = (env.error.data as any[])[0];
    t.equal(info.domain, 'a2a-protocol.org');
    t.equal(info.reason, name);
  });
}

for (const uri of [AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT]) {
  t.test(`-32008 names ${uri} and the A2A-Extensions header`, async (t) => {
    const env = buildExtensionRequired(uri, 'req-3');
    t.equal(env.error.code, -32008);
    t.ok(env.error.message.includes(uri), 'message names the exact URI');
    t.ok(env.error.message.includes('A2A-Extensions'), 'message names the literal header');
    const info = (env.error.data as any[])[0];
    t.same(info, {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'EXTENSION_SUPPORT_REQUIRED',
      domain: 'a2a-protocol.org',
      metadata: { extensionUri: uri, requiredHeader: 'A2A-Extensions' },
    });
    for (const profile of PROFILES) t.same(envelopeProblems(profile, env), []);
  });
}

t.test('a bare -32008 cannot be built', async (t) => {
  t.throws(() => buildA2aError('EXTENSION_SUPPORT_REQUIRED', 1));
});

t.test('-32009 for absent, empty and unsupported versions', async (t) => {
  for (const v of [undefined, '', '0.3', '2.1']) {
    const env = buildVersionNotSupported(v, 5);
    t.equal(env.error.code, -32009);
    t.equal((env.error.data as any[])[0].reason, 'VERSION_NOT_SUPPORTED');
    t.match(env.error.message, /A2A-Version: 1\.0/);
    t.same(envelopeProblems('2.0', env), []);
  }
  t.match(buildVersionNotSupported(undefined, 1).error.message, /missing/);
  t.match(buildVersionNotSupported('', 1).error.message, /0\.3/);
});

t.test('the upstream-unreachable reply is a retryable -32603 naming its cause', async (t) => {
  for (const profile of PROFILES) {
    const env = buildUpstreamUnreachable(profile, 9, 'connection refused by http://127.0.0.1:1 (ECONNREFUSED)');
    t.equal(env.error.code, -32603);
    t.match(env.error.message, /ECONNREFUSED/);
    t.same(envelopeProblems(profile, env), []);
    t.equal(summarizeError(env.error).retryable, true);
  }
});
