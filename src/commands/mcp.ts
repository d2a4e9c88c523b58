/**
 * `aap-chaos mcp`: a Model Context Protocol server on stdio, for the coding agents that write and
 * fix buyer agents. It attaches to a running instance (`--admin URL`) or runs a proxy of its own
 * with the proxy's flags; either way its tools drive the instance through the admin API.
 */
import type { Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { MOCK_OPTIONS, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS } from '../options.js';
import { declareFlags, flagValues, type CommandIo, type FlagTable } from './flags.js';
import { PROXY_FLAGS } from './proxy.js';

const MCP_FLAGS = {
  admin: {
    flag: 'admin',
    type: 'string',
    describe:
      'attach to the running instance whose admin API is at this URL (token: --admin-token or AAP_CHAOS_ADMIN_TOKEN); without it, run a proxy of its own with the flags below',
  },
} as const satisfies FlagTable;

/** The proxy command's own flags that mean the same here; --watch, --report and --workers keep a process of their own and do not. */
const OWN_PROXY_FLAGS = { scenario: PROXY_FLAGS.scenario, ca: PROXY_FLAGS.ca, insecure: PROXY_FLAGS.insecure } as const satisfies FlagTable;

export function mcpCommand(io: CommandIo) {
  return {
    command: 'mcp',
    describe: 'a Model Context Protocol server on stdio for coding agents: attach to an instance (--admin URL) or run a proxy of its own (docs/mcp.md)',
    builder: (y: Argv) => declareFlags(y, io, MCP_FLAGS, OWN_PROXY_FLAGS, RUN_OPTIONS, MOCK_OPTIONS, SCENARIO_LIMIT_OPTIONS),
    handler: async (argv: Record<string, any>) => {
      const conflicting = argv.admin === undefined ? [] : runFlagsGiven(hideBin(process.argv));
      if (conflicting.length > 0)
        io.fail(
          `--${conflicting[0]}: not with --admin, which attaches to an instance that runs with flags of its own (give either --admin URL or the run's flags)`,
        );
      const flags = { limits: flagValues(io, SCENARIO_LIMIT_OPTIONS, argv), run: flagValues(io, RUN_OPTIONS, argv), mock: flagValues(io, MOCK_OPTIONS, argv) };
      // Loaded on use: the SDK and the runtime cost the other commands (and --help) nothing.
      const { runMcp } = await import('./run-mcp.js');
      await runMcp(argv, flags, io);
    },
  };
}

/**
 * The run's flags given on the command line (yargs fills in defaults, so they are read from the
 * words themselves): they would set up a proxy that attach mode never starts.
 */
function runFlagsGiven(args: readonly string[]): string[] {
  const runFlags = new Map<string, string>();
  for (const table of [OWN_PROXY_FLAGS, RUN_OPTIONS, MOCK_OPTIONS])
    for (const spec of Object.values(table) as { flag: string; alias?: string }[]) {
      if (spec.flag === RUN_OPTIONS.adminToken.flag || spec.flag === MCP_FLAGS.admin.flag) continue;
      runFlags.set(spec.flag, spec.flag);
      if (spec.alias) runFlags.set(spec.alias, spec.flag);
    }
  const given: string[] = [];
  for (const word of args) {
    if (word === '--') break;
    const name = /^--?(?:no-)?([^=]+)/.exec(word)?.[1]?.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const flag = name === undefined ? undefined : runFlags.get(name);
    if (flag !== undefined && !given.includes(flag)) given.push(flag);
  }
  return given;
}
