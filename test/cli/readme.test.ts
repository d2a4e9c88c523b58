// The README's walk-through, request by request, against the proxy and mock dealer `npm start` runs.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startChaos } from '../../src/index.js';
import { request } from '../helpers/servers.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The JSON bodies of the README's curl commands (the text between -d ' and the closing '), in order. */
const curlBodies = [...readme.matchAll(/curl -s \S+[\s\S]*?-d '([\s\S]*?)'\n/g)].map((m) => m[1]!);

t.test('the README curls work against the demo scenario, as printed', async (t) => {
  t.ok(curlBodies.length >= 6, `${curlBodies.length} curl commands found`);
  const chaos = await startChaos({ scenario: 'demo' });
  t.teardown(() => chaos.close());
  const post = async (body: string) =>
    JSON.parse(
      (
        await request(chaos.url + '/a2a', {
          body,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': 'https://autoagentprotocol.org/extensions/aap/v1.3' },
        })
      ).body.toString(),
    );

  const [quickStart, ...perSkill] = curlBodies;
  const skillOf = (body: string) => JSON.parse(body).params.message.parts[0].data.type.replace(/\.request$/, '');
  const expected: Record<string, (reply: any) => boolean> = {
    'dealer.information': (r) => typeof r.result?.message.parts[0].data.data.name === 'string',
    'inventory.facets': (r) => r.result?.message.parts[0].data.type === 'inventory.facets.response',
    'inventory.search': (r) => Array.isArray(r.result?.message.parts[0].data.data.vehicles),
    'inventory.vehicle': (r) => r.error?.data?.code === 'VEHICLE_UNAVAILABLE',
    'lead.submit': (r) => typeof r.result?.message.parts[0].data.data.lead_id === 'string',
  };
  for (const body of perSkill) {
    const skill = skillOf(body);
    const reply = await post(body);
    t.ok(expected[skill]?.(reply), `${skill}: ${JSON.stringify(reply).slice(0, 160)}`);
  }

  // The quick start: six searches in a row, the sixth rate-limited (one search above already counted).
  const codes: (number | undefined)[] = [];
  for (let i = 0; i < 5; i++) codes.push((await post(quickStart!)).error?.code);
  t.same(codes, [undefined, undefined, undefined, undefined, -32002], 'the sixth search in 10 s is RATE_LIMITED (-32002)');
});
