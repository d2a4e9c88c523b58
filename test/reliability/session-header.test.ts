// The session header's value is written as the session id into every sink (journal, /events, the
// report, Redis key names), so --session-header may not name a header whose value is a secret:
// Authorization, cookies, x-api-key, anything named like a token, secret, password or API key, and
// any --redact-header name. Refused with one line naming the flag, exit 2; the library likewise.
import t from 'tap';
import { startChaos } from '../../src/index.js';
import { cli } from '../helpers/cli-run.js';

t.test('--session-header naming a secret header: exit 2, one line, nothing starts', async (t) => {
  for (const args of [
    ['--session-header', 'x-api-key'],
    ['--session-header', 'Authorization'],
    ['--session-header', 'cookie'],
    ['--session-header', 'X-Auth-Token'],
    ['--session-header', 'x-tenant', '--redact-header', 'X-Tenant'],
  ]) {
    const r = await cli([...args, '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on' });
    t.equal(r.code, 2, args.join(' '));
    t.match(r.err, /^aap-chaos: --session-header: "[^"]+" (is a header whose value is a secret|is named by --redact-header)[^\n]*\n$/, args.join(' '));
    t.equal(r.out, '', 'nothing started');
  }
});

t.test('the library refuses the same names', async (t) => {
  await t.rejects(startChaos({ sessionHeader: 'proxy-authorization' }), {
    name: 'OptionError',
    message: /^option sessionHeader \(flag --session-header\): "proxy-authorization" is a header whose value is a secret/,
  });
  await t.rejects(startChaos({ sessionHeader: 'x-team', redactHeaders: ['x-team'] }), {
    name: 'OptionError',
    message: /--session-header: "x-team" is named by --redact-header/,
  });
  const ok = await startChaos({ sessionHeader: 'x-test-run' });
  t.equal(ok.status().scenario, null, 'an ordinary header is taken');
  await ok.close();
});
