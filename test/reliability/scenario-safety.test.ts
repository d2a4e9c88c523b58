// A scenario file is data: it cannot run code, read other files, or point the proxy anywhere but
// the target; a request cannot either.
import t from 'tap';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadScenarioText, resolveScenarioRef, BUILTIN_SCENARIO_DIR } from '../../src/scenario/load.js';
import { harness } from '../helpers/chaos-harness.js';
import { skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('YAML tags build no objects, run nothing and read no file', async (t) => {
  const dir = tempDir(t, 'aap-chaos-safety-');
  writeFileSync(path.join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT');
  const text = `rules:\n  - id: a\n    error: INTERNAL_ERROR\n    message: !!js/function "function () { globalThis.scenarioRan = true }"\n  - id: b\n    error: INTERNAL_ERROR\n    message: !include ${path.join(dir, 'secret.txt')}\n`;
  const result = loadScenarioText(text, path.join(dir, 's.yaml'));
  t.equal((globalThis as { scenarioRan?: boolean }).scenarioRan, undefined, 'no code ran');
  t.notOk(JSON.stringify(result).includes('TOP-SECRET-CONTENT'), 'no file was read');
  if (result.ok)
    t.same(
      (result.scenario.rules ?? []).map((r) => typeof r.message),
      ['string', 'string'],
      'tagged values are plain strings',
    );
});

t.test('no key includes other files or names a host', async (t) => {
  for (const key of ['include: other.yaml', 'target: http://evil.example', '$ref: ../x.yaml']) {
    const result = loadScenarioText(`${key}\nrules: []\n`, 's.yaml');
    t.equal(result.ok, false, `"${key}" is refused`);
  }
});

t.test('built-in names resolve inside scenarios/ only', async (t) => {
  const demo = await resolveScenarioRef('demo');
  t.ok(demo.ok && demo.builtin && path.dirname(demo.path) === path.resolve(BUILTIN_SCENARIO_DIR));
  for (const name of ['..', '.hidden', 'a b', '~root']) t.equal((await resolveScenarioRef(name)).ok, false, `"${name}" is not a built-in`);
});

t.test('an absolute-form request URL or a foreign Host still goes to the target', async (t) => {
  // The foreign Host is allowed (--allow-host): a loopback proxy refuses it otherwise (421).
  const h = await harness(t, 'rules: []\n', { proxy: { allowHosts: ['evil.example'] } });
  const body = skillRequest('dealer.information');
  const { port } = new URL(h.proxy.url);
  const reply = await new Promise<string>((resolve) => {
    const s = net.connect(Number(port), '127.0.0.1');
    let got = '';
    s.on('data', (c) => (got += c));
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
    s.write(
      `POST http://evil.example:9/a2a HTTP/1.1\r\nhost: evil.example:9\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
  });
  t.match(reply, /^HTTP\/1\.1 \d{3}/, 'answered');
  const posts = h.upstream.seen.filter((s) => s.method === 'POST');
  t.equal(posts.length, 1, 'the target got the request');
  t.match(posts[0]?.url, /a2a$/, `at ${posts[0]?.url}`);
});
