// The error effect's envelope template writes, for any id, error id and second, the very bytes
// JSON.stringify of the built envelope writes; a template that could not be proven is not used.
import t from 'tap';
import { AAP_CODES, PROFILES, VALIDATION_CODES } from '../../src/protocol/codes.js';
import { buildAapError, newErrorId } from '../../src/protocol/envelopes.js';
import { EnvelopeTemplate, type EnvelopeBuilder } from '../../src/protocol/envelope-template.js';
import { ExactNumberId, stringifyJsonRpc, type JsonRpcId } from '../../src/protocol/rpc-id.js';
import { createErrorEffect } from '../../src/effects/error.js';
import type { EffectContext } from '../../src/effects/effect.js';
import { classifyRequest } from '../../src/protocol/classify.js';

const IDS: JsonRpcId[] = [1, 0, -7.5, 'req-1', 'quote " and \\ and \u2028 and é', '', null, new ExactNumberId('12345678901234567890')];
const NOWS = [Date.UTC(2026, 11, 2, 8, 30, 15, 123), Date.UTC(1999, 0, 1)];

t.test('every templated code, profile and id kind: the template writes what JSON.stringify writes', async (t) => {
  let checked = 0;
  for (const code of AAP_CODES.filter((c) => !VALIDATION_CODES.has(c))) {
    for (const profile of PROFILES) {
      for (const opts of [{}, { message: 'Try later, "please"', details: { note: 'kept', n: 2 }, retryAfterMs: 250, retryable: false }]) {
        const build: EnvelopeBuilder = (id, errorId, now) => buildAapError(profile, code, id, { ...opts, errorId, now });
        const template = EnvelopeTemplate.of(build);
        if (!template) {
          t.fail(`${code} ${profile}: no template`);
          continue;
        }
        for (const id of IDS)
          for (const now of NOWS) {
            const errorId = newErrorId();
            if (template.render(id, errorId, now) !== stringifyJsonRpc(build(id, errorId, now))) t.fail(`${code} ${profile} id ${String(id)}`);
            checked++;
          }
      }
    }
  }
  t.ok(checked >= 9 * 2 * 2 * IDS.length * NOWS.length, `${checked} envelopes compared byte for byte`);
});

t.test('a template that would write other bytes is refused, and the caller serialises', async (t) => {
  // A rule message that spells a marker, and a builder whose text depends on the id beyond its hole.
  const marker: EnvelopeBuilder = (id, errorId, now) => buildAapError('1.3', 'INTERNAL_ERROR', id, { message: '\u0001aap-chaos-id\u0001', errorId, now });
  const template = EnvelopeTemplate.of(marker);
  if (template) t.equal(template.render(3, 'err_X', NOWS[0]!), stringifyJsonRpc(marker(3, 'err_X', NOWS[0]!)), 'any template kept still writes the same bytes');
  const derived: EnvelopeBuilder = (id, errorId, now) => buildAapError('1.3', 'INTERNAL_ERROR', id, { message: `about ${String(id)}`, errorId, now });
  t.equal(EnvelopeTemplate.of(derived), undefined, 'a message that depends on the id cannot be templated');
});

t.test('the error effect answers the templated bytes, and the envelope the journal reads matches them', async (t) => {
  const effect = createErrorEffect({ id: 'r', error: { code: 'RATE_LIMITED', retry_after_ms: 300 } } as never);
  const request = classifyRequest({
    method: 'POST',
    url: '/a2a',
    headers: {},
    clientIp: '127.0.0.1',
    body: Buffer.from('{"jsonrpc":"2.0","id":12345678901234567890,"method":"SendMessage","params":{}}'),
  });
  for (const profile of PROFILES) {
    const ctx = { request, profile, extensionUri: 'x', random: Math.random, now: 0, keyState: {} } as EffectContext;
    const first = effect.decide(ctx)!.action;
    const second = effect.decide(ctx)!.action;
    if (first.type !== 'reply' || second.type !== 'reply') throw new Error('not a reply');
    t.equal(first.body.toString(), stringifyJsonRpc(first.envelope), `${profile}: the bytes are the envelope's`);
    t.match(first.body.toString(), /^\{"jsonrpc":"2\.0","id":12345678901234567890,/, `${profile}: the buyer's exact id`);
    t.not(first.body.toString(), second.body.toString(), `${profile}: a fresh error_id each time`);
  }
});
