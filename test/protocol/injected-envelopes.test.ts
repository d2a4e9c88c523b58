// Every AAP code × profile × way of injecting it (a rule, a rule with its own details, the
// x-aap-chaos header), over real sockets: each envelope is held to the project's envelope schemas
// and, independently, to the seed's sentences.
import t from 'tap';
import { AAP_CODES, PROFILES, type AapCode, type Profile } from '../../src/protocol/codes.js';
import { harness, type Harness } from '../helpers/chaos-harness.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { seedViolations } from '../helpers/seed-envelope-check.js';

const VALIDATION: readonly string[] = ['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION'];

/** One rule per code, picked by the x-code request header; `withDetails` gives each rule details of its own. */
function scenario(withDetails: boolean): string {
  const rules = AAP_CODES.map((code) =>
    withDetails
      ? `  - id: ${code.toLowerCase()}\n    match: { headers: { x-code: ${code} } }\n    error: { code: ${code}, message: Injected ${code}, details: { note: kept } }\n`
      : `  - id: ${code.toLowerCase()}\n    match: { headers: { x-code: ${code} } }\n    error: ${code}\n`,
  );
  return `rules:\n${rules.join('')}`;
}

const PATHS = ['rule', 'override', 'header'] as const;
type Path = (typeof PATHS)[number];

const searchData = { filters: { make: ['Honda'], year_min: 2020 }, pagination: { limit: 5 } };

function payloadOf(profile: Profile, env: any): Record<string, any> {
  return profile === '1.3' ? env.error.data : env.error.data.find((d: any) => d.type === 'aap.error');
}

async function inject(h: Harness, path: Path, code: AapCode, skill = 'inventory.search', data: Record<string, unknown> = searchData) {
  const headers: Record<string, string> = path === 'header' ? { 'x-aap-chaos': code } : { 'x-code': code };
  return h.json(await h.call(skill, data, { id: `${path}-${code}`, headers }));
}

for (const profile of PROFILES) {
  for (const path of PATHS) {
    t.test(`${profile} × ${path}: every code is valid by the schemas and by the seed`, async (t) => {
      const h = await harness(t, path === 'header' ? 'rules: []\n' : scenario(path === 'override'), {
        proxy: { profile },
        engine: { allowHeaderFaults: path === 'header' },
      });
      for (const code of AAP_CODES) {
        const env = await inject(h, path, code);
        t.equal(env.id, `${path}-${code}`, `${code}: id echoed`);
        t.same(envelopeProblems(profile, env), [], `${code}: valid by the ${profile} envelope schema`);
        t.same(seedViolations(env, profile), [], `${code}: valid by the seed's sentences`);
        const payload = payloadOf(profile, env);
        t.equal(payload.code, code);
        if (path === 'override') t.equal(payload.details.note, 'kept', `${code}: the rule's own details are kept`);
        if (VALIDATION.includes(code)) t.ok(payload.details.errors.length > 0, `${code}: details.errors[] present`);
        if (code === 'RATE_LIMITED') t.equal(payload.details.retry_after_ms, 1000, 'RATE_LIMITED gets the default retry_after_ms');
      }
      t.equal(h.upstream.seen.filter((s) => s.url === '/a2a').length, 0, 'no injected error reaches the dealer');
    });
  }
}

t.test('a valid request gets one plausible, deterministic entry per validation code', async (t) => {
  const h = await harness(t, scenario(false), { proxy: { profile: '2.0' } });
  const errorsOf = async (code: AapCode, skill?: string, data?: Record<string, unknown>) =>
    payloadOf('2.0', await inject(h, 'rule', code, skill, data)).details.errors;
  t.same(
    await errorsOf('SCHEMA_VALIDATION_FAILED'),
    [{ instanceLocation: '/filters/make/0', keyword: 'type', error: 'must be integer' }],
    'the first field the request has',
  );
  t.same(await errorsOf('SCHEMA_VALIDATION_FAILED'), await errorsOf('SCHEMA_VALIDATION_FAILED'), 'the same request gives the same entries');
  t.same(await errorsOf('INVALID_CONDITION'), [
    { instanceLocation: '/vehicle_of_interest/condition', keyword: 'enum', error: 'must be one of: new, used, cpo' },
  ]);
  const lead = { customer: { first_name: 'Ada', last_name: 'L', email: 'ada@example.com' }, source_agent: { name: 'test' }, trade_in: { condition: 'good' } };
  t.same(
    await errorsOf('INVALID_CONDITION', 'lead.submit', lead),
    [{ instanceLocation: '/trade_in/condition', keyword: 'enum', error: 'must be one of: excellent, good, fair, poor' }],
    'a condition the request has',
  );
  t.same((await errorsOf('MISSING_REQUIRED_FIELD', 'lead.submit', lead))[0].instanceLocation, '/customer/phone', 'an absent field the schema names');
  t.same(
    await errorsOf('MISSING_REQUIRED_FIELD', 'inventory.vehicle', { stock: 'M10001' }),
    [{ instanceLocation: '/vin', keyword: 'required', error: 'is required' }],
    'a field the schema asks for',
  );
  t.same(await errorsOf('MISSING_REQUIRED_FIELD', 'dealer.information', {}), [{ instanceLocation: '/type', keyword: 'required', error: 'is required' }]);
});

t.test('an invalid request gets every real problem, by the same schemas the mock uses', async (t) => {
  const h = await harness(t, scenario(true), { proxy: { profile: '2.0' } });
  const env = await inject(h, 'override', 'SCHEMA_VALIDATION_FAILED', 'inventory.search', { filters: { year_min: 'new', colour: 'red' } });
  const payload = payloadOf('2.0', env);
  t.same(payload.details.errors.map((e: any) => e.instanceLocation).sort(), ['/filters/colour', '/filters/year_min'], 'both problems listed');
  t.equal(payload.details.note, 'kept');
  const badRequest = env.error.data.find((d: any) => d['@type'].endsWith('BadRequest'));
  t.equal(badRequest.fieldViolations.length, 2, 'BadRequest mirrors them');
  const lead = payloadOf(
    '2.0',
    await inject(h, 'rule', 'INVALID_CONDITION', 'lead.submit', { vehicle_of_interest: { condition: 'fair' }, trade_in: { condition: 'new' } }),
  );
  t.same(
    lead.details.errors.map((e: any) => e.instanceLocation).sort(),
    ['/customer', '/source_agent', '/trade_in/condition', '/vehicle_of_interest/condition'],
    'schema and condition stages merged',
  );
});

t.test('a rule that gives its own errors keeps them, and 2.0 mirrors them', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: own\n    error: SCHEMA_VALIDATION_FAILED\n    details: { errors: [{ instanceLocation: /filters/make, keyword: type, error: must be array }] }\n`,
    { proxy: { profile: '2.0' } },
  );
  const env = h.json(await h.call('inventory.search', searchData));
  t.same(payloadOf('2.0', env).details.errors, [{ instanceLocation: '/filters/make', keyword: 'type', error: 'must be array' }]);
  t.same(env.error.data[1], {
    '@type': 'type.googleapis.com/google.rpc.BadRequest',
    fieldViolations: [{ field: '/filters/make', description: 'type: must be array' }],
  });
  t.same(seedViolations(env, '2.0'), []);
});

t.test('RATE_LIMITED: a rule may choose retry_after_seconds instead of the default', async (t) => {
  for (const profile of PROFILES) {
    const h = await harness(t, `rules:\n  - id: slow\n    error: RATE_LIMITED\n    retry_after_seconds: 3\n`, { proxy: { profile } });
    const env = h.json(await h.call('inventory.search'));
    const payload = payloadOf(profile, env);
    t.same(payload.details, { retry_after_seconds: 3 }, 'seconds only, no default in milliseconds beside it');
    t.same(envelopeProblems(profile, env), []);
    t.same(seedViolations(env, profile), []);
    t.match(h.journal[0]!.effects, [/retry after 3 s/]);
  }
});
