/**
 * What `aap-chaos mcp` does once its flags are read: reach the instance its tools drive (the one
 * at --admin, or a run of its own started with the proxy's flags), serve the tools on stdio, and
 * end when the host closes stdin. Every line of its own goes to stderr: stdout is the protocol's.
 */
import { AdminClient } from '../control/admin-client.js';
import { ADMIN_TOKEN_ENV } from '../control/auth.js';
import type { McpContext } from '../mcp/tool.js';
import { REPLAY_TARGET_PREFIX } from '../option-values.js';
import { configureScenarioLimits } from '../scenario/load.js';
import type { CommandIo } from './flags.js';
import { proxyRuntimeOptions, type ProxyFlagValues } from './proxy-options.js';

/** The proxy command's flags, checked, but for --workers. */
export type McpFlagValues = Omit<ProxyFlagValues, 'workers'>;

interface Reached {
  context: McpContext;
  close(): Promise<void>;
}

export async function runMcp(argv: Record<string, any>, flags: McpFlagValues, io: CommandIo): Promise<void> {
  configureScenarioLimits(flags.limits);
  // The token the admin API is given, found the way it finds it: the flag, else the variable.
  const token = flags.run.adminToken || process.env[ADMIN_TOKEN_ENV] || undefined;
  const reached = argv.admin !== undefined ? attach(argv.admin, token, io) : await runOwnProxy(argv, flags, token, io);
  // Loaded once the flags are found usable: a refused flag costs no SDK.
  const { serveOnStdio } = await import('../mcp/server.js');
  await serveOnStdio(reached.context, () =>
    reached.close().then(
      () => process.exit(0),
      (e: unknown) => {
        io.err(`aap-chaos mcp: shutdown failed: ${(e as Error)?.message ?? String(e)}`);
        process.exit(1);
      },
    ),
  );
}

/** --admin URL: the instance there, with nothing of its own to start or stop. */
function attach(adminUrl: string, token: string | undefined, io: CommandIo): Reached {
  let url: URL;
  try {
    url = new URL(adminUrl);
  } catch {
    io.fail(`--admin: "${adminUrl.slice(0, 200)}" is not a URL (e.g. http://127.0.0.1:8081)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') io.fail(`--admin: ${url.protocol} is not http: or https:`);
  if (url.username || url.password)
    io.fail('--admin: a URL with a user name or password is refused; give the token with --admin-token or AAP_CHAOS_ADMIN_TOKEN');
  io.err(`aap-chaos mcp: serving tools on stdio for the instance whose admin API is at ${url.origin}${token ? ' (with a token)' : ''}`);
  return { context: { instance: new AdminClient(url.origin + url.pathname, token), dealerOrigins: [] }, close: async () => {} };
}

/** No --admin: a proxy of its own, exactly as `aap-chaos` would run with these flags. */
async function runOwnProxy(argv: Record<string, any>, flags: McpFlagValues, token: string | undefined, io: CommandIo): Promise<Reached> {
  // Loaded on use: attaching needs none of the runtime.
  const { closeOnSignals, startRuntime } = await import('../runtime.js');
  let runtime;
  try {
    runtime = await startRuntime(proxyRuntimeOptions(argv, flags, io, io.err));
  } catch (e) {
    io.fail((e as Error).message);
  }
  const close = () => runtime.close();
  closeOnSignals({ close }, { log: io.err });
  io.err(`aap-chaos mcp: serving tools on stdio for the proxy at ${runtime.url}`);
  return { context: { instance: new AdminClient(runtime.adminUrl, token), dealerOrigins: dealerOrigins(flags.run) }, close };
}

/** The origins of the dealers given at start, which check_dealer may probe besides loopback addresses. */
function dealerOrigins(run: McpFlagValues['run']): string[] {
  const urls = [...(run.target !== undefined && !run.target.startsWith(REPLAY_TARGET_PREFIX) ? [run.target] : []), ...(run.dealers ?? []).map((d) => d.url)];
  return [...new Set(urls.map((u) => new URL(u).origin))];
}
