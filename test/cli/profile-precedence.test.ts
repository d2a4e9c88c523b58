// Which envelope profile is in force: an explicit --profile, then the scenario's profile:, then the
// dealer's card. The CLI and startChaos agree, and /status and the start-up banner say where it came from.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startChaos } from '../../src/index.js';
import { request } from '../helpers/servers.js';

const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));

/** Starts the CLI on free ports and resolves with its banner once the admin API is up. */
async function startCli(t: Test, args: string[]): Promise<{ banner: string; adminUrl: string }> {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--admin-port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  // Keep reading to the end (a destroyed pipe would make the CLI's later lines fail).
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      banner += String(chunk);
      if (/^profile .*$/m.test(banner)) resolve();
    });
    child.once('exit', () => reject(new Error(`exited before the banner: ${banner}`)));
  });
  const adminUrl = /admin API on (\S+)/.exec(banner)?.[1];
  if (!adminUrl) throw new Error(`no admin URL in: ${banner}`);
  return { banner, adminUrl };
}

const statusOf = async (adminUrl: string) => JSON.parse((await request(`${adminUrl}/status`)).body.toString());

t.test("CLI: the scenario's profile: wins without --profile, and says so", async (t) => {
  const { banner, adminUrl } = await startCli(t, ['--scenario', 'activation-required']);
  t.match(banner, "profile 2.0 (from the scenario's profile:)");
  t.match(await statusOf(adminUrl), { profile: '2.0', profile_origin: 'scenario' });
});

t.test('CLI: an explicit --profile wins over the scenario', async (t) => {
  const { banner, adminUrl } = await startCli(t, ['--scenario', 'version-mismatch', '--profile', '1.3']);
  t.match(banner, 'profile 1.3 (set by --profile)');
  t.match(await statusOf(adminUrl), { profile: '1.3', profile_origin: 'flag' });
});

const mockCardUri = async (adminUrl: string) =>
  JSON.parse((await request(`${(await statusOf(adminUrl)).url}/.well-known/agent-card.json`)).body.toString()).capabilities.extensions[0].uri;

t.test("CLI: with neither, the dealer's card decides; the embedded mock follows a fixed profile unless --mock-profile says", async (t) => {
  const { banner, adminUrl } = await startCli(t, ['--scenario', 'passthrough']);
  t.match(banner, "profile 1.3 (from the dealer's card)");
  t.match(await statusOf(adminUrl), { profile: '1.3', profile_origin: 'card' });
  t.equal(await mockCardUri(adminUrl), 'https://autoagentprotocol.org/extensions/aap/v1.3', 'the mock is 1.3 by default');
  const pinned = await startCli(t, ['--profile', '2.0']);
  t.equal(await mockCardUri(pinned.adminUrl), 'https://draft.autoagentprotocol.invalid/extensions/aap/latest', 'the mock follows --profile 2.0');
  const own = await startCli(t, ['--profile', '2.0', '--mock-profile', '1.3']);
  t.equal(await mockCardUri(own.adminUrl), 'https://autoagentprotocol.org/extensions/aap/v1.3', '--mock-profile wins');
});

t.test('startChaos follows the same precedence', async (t) => {
  const byScenario = await startChaos({ scenario: 'activation-required' });
  t.teardown(() => byScenario.close());
  t.match(byScenario.status(), { profile: '2.0', profile_origin: 'scenario' });
  const byFlag = await startChaos({ scenario: 'activation-required', profile: '1.3' });
  t.teardown(() => byFlag.close());
  t.match(byFlag.status(), { profile: '1.3', profile_origin: 'flag' });
  await byScenario.use('passthrough');
  t.match(
    byScenario.status(),
    { profile: '2.0', profile_origin: 'card' },
    'a scenario without profile: hands back to the card (of the 2.0 mock started for activation-required)',
  );
  await byScenario.use('version-mismatch');
  t.match(byScenario.status(), { profile: '2.0', profile_origin: 'scenario' });
});

t.test('--mock-extension-uri: the mock presents the team URI; a bad one is refused naming the flag', async (t) => {
  const uri = 'https://dealer.example/extensions/aap/v2.0';
  const { adminUrl } = await startCli(t, ['--mock-profile', '2.0', '--mock-extension-uri', uri]);
  t.equal(await mockCardUri(adminUrl), uri);
  t.match(await statusOf(adminUrl), { profile: '2.0', extension_uri: uri }, 'the proxy reads it from the card');
  const bad = spawn(process.execPath, [BIN, '--port', '0', '--admin-port', '0', '--mock-extension-uri', 'not a uri'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  bad.stderr!.on('data', (c) => (err += c));
  const [code] = await once(bad, 'exit');
  t.equal(code, 2);
  t.match(err, '--mock-extension-uri: "not a uri" is not an absolute URI');
});
