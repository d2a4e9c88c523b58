/**
 * The command line: a thin shell over the library. Every command turns its flags into options,
 * calls one function, and turns failures into a clear line and an exit code — never a stack trace.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { startRuntime, closeOnSignals, ScenarioRejectedError, VERSION, type RuntimeOptions } from './runtime.js';
import { checkOption, checkOptions, MOCK_OPTIONS, OptionError, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS } from './options.js';
import { startMockDealer } from './mock/index.js';
import { validateFiles, listBuiltinScenarios, resolveScenarioRef, formatProblem, configureScenarioLimits, DEFAULT_SCENARIO_LIMITS } from './scenario/load.js';
import { watchScenarioFile } from './scenario/watch.js';
import { runReportCommand } from './report/command.js';
import { runCtl } from './commands/ctl.js';
import { formatReport } from './report/format.js';
import { DEFAULT_THRESHOLDS, THRESHOLD_NAMES } from './report/thresholds.js';
import { startFleetCommand } from './fleet/fleet-command.js';
import { reportToPrimary, workerIndex } from './fleet/workers.js';
import { replayCommand } from './commands/replay.js';
import { reloadTlsOn } from './control/tls-reload.js';
import { runAuditVerify } from './journal/audit-verify-command.js';

/** Set once stdout is closed (`aap-chaos … | head -1`): further output is dropped, quietly. */
let stdoutClosed = false;
const out = (line: string) => {
  if (!stdoutClosed) process.stdout.write(line + '\n');
};
const err = (line: string) => process.stderr.write(line + '\n');
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (stream === process.stdout) stdoutClosed = true;
  });
}

/** Exit with a message, the way every user-facing failure ends. */
function fail(message: string, code = 2): never {
  err(`aap-chaos: ${message}`);
  process.exit(code);
}

/** Checks flags through the shared option table; a bad value ends the run with one line. */
function checked<T extends Record<string, unknown>>(given: T): T {
  try {
    return checkOptions(given, 'flag');
  } catch (e) {
    if (e instanceof OptionError) fail(e.message);
    throw e;
  }
}

/** One flag per report threshold, named after it: retry_after_tolerance_ms → --retry-after-tolerance-ms. */
const flagName = (threshold: string) => threshold.replace(/_/g, '-');
function thresholdFlags(): Record<string, { type: 'number'; describe: string }> {
  return Object.fromEntries(
    THRESHOLD_NAMES.map((n) => [flagName(n), { type: 'number' as const, describe: `report threshold (default ${DEFAULT_THRESHOLDS[n]})` }]),
  );
}

/** --max-scenario-bytes and --max-scenario-rules, on every command that loads scenarios. */
const scenarioLimitFlags = {
  'max-scenario-bytes': {
    type: 'string',
    nargs: 1,
    default: String(DEFAULT_SCENARIO_LIMITS.maxBytes),
    describe: 'scenario files larger than this are refused',
  },
  'max-scenario-rules': {
    type: 'string',
    nargs: 1,
    default: String(DEFAULT_SCENARIO_LIMITS.maxRules),
    describe: 'scenarios with more rules than this are refused',
  },
} as const;

/** Applies --max-scenario-bytes and --max-scenario-rules after checking them like every other flag. */
function applyScenarioLimits(argv: Record<string, unknown>): void {
  try {
    configureScenarioLimits({
      maxBytes: checkOption(SCENARIO_LIMIT_OPTIONS.maxBytes, 'maxBytes', argv.maxScenarioBytes, 'flag') as number,
      maxRules: checkOption(SCENARIO_LIMIT_OPTIONS.maxRules, 'maxRules', argv.maxScenarioRules, 'flag') as number,
    });
  } catch (e) {
    fail((e as Error).message);
  }
}

/** --ca FILE: read once at start; a missing or unreadable file is a usage error naming the flag. */
function readCaFile(file: string): string {
  try {
    const pem = readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) fail(`--ca: ${file} holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`);
    return pem;
  } catch (e) {
    fail(`--ca: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** --header-timeout and --body-timeout, on every command that listens. */
const listenerTimeoutFlags = {
  'header-timeout': { type: 'string', default: '10s', describe: 'time a client has to send its request headers' },
  'body-timeout': { type: 'string', default: '30s', describe: 'time a client has, after the headers, to send its request body' },
} as const;

async function runProxy(argv: Record<string, any>): Promise<void> {
  applyScenarioLimits(argv);
  const opts: RuntimeOptions = checked({
    target: argv.target,
    dealers: argv.dealer,
    mockDealers: argv.mockDealers,
    port: argv.port,
    host: argv.host,
    allowHosts: argv.allowHost,
    adminPort: argv.adminPort,
    adminHost: argv.adminHost,
    adminToken: argv.adminToken,
    scenario: argv.scenario,
    seed: argv.seed,
    profile: argv.profile,
    extensionUri: argv.extensionUri,
    upstreamTimeoutMs: argv.upstreamTimeout,
    streamIdleTimeoutMs: argv.streamIdleTimeout,
    maxInspectBytes: argv.maxInspectBytes,
    rewriteCard: argv.rewriteCard,
    dryRun: argv.dryRun,
    checkDealer: argv.checkDealer,
    allowHeaderFaults: argv.allowHeaderFaults,
    journalFile: argv.journal,
    journalRing: argv.journalRing,
    drainTimeoutMs: argv.drainTimeout,
    clientKey: argv.clientKey,
    sessionHeader: argv.sessionHeader,
    headerTimeoutMs: argv.headerTimeout,
    bodyTimeoutMs: argv.bodyTimeout,
    maxBodyBytes: argv.maxBody,
    redactHeaders: argv.redactHeader,
    dealerTls: { ca: argv.ca === undefined ? undefined : readCaFile(argv.ca), insecure: argv.insecure },
    mock: { profile: argv.mockProfile, extensionUri: argv.mockExtensionUri, streaming: argv.mockStreaming, inventoryFile: argv.inventory },
    state: argv.state,
    replicaId: argv.replicaId,
    record: argv.record,
    recordMaxBytes: argv.recordMaxBytes,
    tlsCert: argv.tlsCert,
    tlsKey: argv.tlsKey,
    adminTlsCert: argv.adminTlsCert,
    adminTlsKey: argv.adminTlsKey,
    maxTtlMs: argv.maxTtl,
    auditFile: argv.audit,
    otlpEndpoint: argv.otlpEndpoint,
    observe: argv.observe,
    log: out,
  });
  const workers = checkOption(RUN_OPTIONS.workers, 'workers', argv.workers, 'flag') as number;
  // --workers N: the primary forks and supervises; each worker goes on below as one replica.
  if ((await startFleetCommand(workers, opts, { out, fail })) === 'primary') return;
  // Checked before anything starts: a watch that could never fire is a mistake, not a no-op.
  let watchedFile: string | undefined;
  // --watch with TLS files and no scenario file watches the certificates alone.
  const tlsFiles = [argv.tlsCert, argv.tlsKey, argv.adminTlsCert, argv.adminTlsKey].filter((f): f is string => typeof f === 'string');
  if (argv.watch && !(tlsFiles.length > 0 && argv.scenario === undefined)) {
    const ref = typeof argv.scenario === 'string' ? await resolveScenarioRef(argv.scenario) : undefined;
    if (!ref?.ok || ref.builtin) {
      fail(
        `--watch: needs --scenario FILE to watch, got ${typeof argv.scenario === 'string' ? `"${argv.scenario}" (${ref?.ok ? 'a built-in scenario' : 'not a file'})` : 'no --scenario'}`,
      );
    }
    watchedFile = ref.path;
  }
  let runtime;
  try {
    runtime = await startRuntime(opts);
  } catch (e) {
    if (e instanceof ScenarioRejectedError) fail(e.message);
    fail((e as Error).message);
  }
  reportToPrimary({ ready: true, url: runtime.url, adminUrl: runtime.adminUrl });
  if (runtime.dealerUrls) for (const [name, base] of Object.entries(runtime.dealerUrls)) out(`dealer ${name}: card at ${base}/.well-known/agent-card.json`);
  else if (!opts.target && (workerIndex() ?? 1) === 1) {
    out('');
    out('Try it (inventory.search through the proxy):');
    out(
      `  curl -s ${runtime.url}/a2a -H 'content-type: application/json' -H 'A2A-Version: 1.0' ` +
        `-d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"data":{"type":"inventory.search.request","filters":{"make":["Honda"]},"pagination":{"limit":2}},"mediaType":"application/vnd.autoagent.inventory-search-request+json"}]}}}'`,
    );
  }
  let stopWatching: (() => void) | undefined;
  if (watchedFile !== undefined) {
    const file = watchedFile;
    stopWatching = watchScenarioFile(
      file,
      (scenario) => {
        runtime.use(scenario).then(
          (engine) => out(`reloaded ${file}: scenario ${engine.name} (${engine.rules().length} rules)`),
          (e) => err(`reload failed: ${(e as Error).message}`),
        );
      },
      (problems) => {
        err(`${file} was not loaded; the running scenario stays:`);
        for (const p of problems) err(`  ${formatProblem(p)}`);
      },
    ).close;
    // Said once the watch is in place: a change made after this line is always seen.
    out(`watching ${file} for changes`);
  }
  const stopTls = reloadTlsOn(runtime, argv.watch ? tlsFiles : [], { out, err });
  const printReport = argv.report as boolean;
  closeOnSignals(
    {
      close: async () => {
        stopWatching?.();
        stopTls();
        const report = printReport ? runtime.report() : undefined;
        await runtime.close();
        if (report) out(formatReport(report));
      },
    },
    { log: out },
  );
}

const COMMANDS = ['mock', 'validate', 'scenarios', 'report', 'ctl', 'replay', 'audit'];

async function main(): Promise<void> {
  const args = hideBin(process.argv);
  // exam has its own parser: everything after "--" is the buyer's command, untouched.
  if (args[0] === 'exam') {
    const { runExamCommand } = await import('./commands/exam.js');
    process.exitCode = await runExamCommand(args.slice(1), { out, err });
    return;
  }
  await yargs(args)
    .scriptName('aap-chaos')
    .usage('$0 [--target URL] [options]\n\nA fault-injection reverse proxy for AAP dealer agents. Without --target it serves an embedded mock dealer.')
    .command(
      '$0',
      'run the proxy (in front of --target, or of the embedded mock dealer)',
      (y) =>
        y
          .option('target', {
            type: 'string',
            describe: 'dealer agent base URL, or replay:FILE (a dealer answering from a recording); without it the embedded mock dealer is used',
          })
          .option('dealer', {
            type: 'string',
            array: true,
            describe: 'several dealers behind one proxy: NAME=URL, repeatable; each is reached under /d/NAME/ (not with --target)',
          })
          .option('mock-dealers', {
            type: 'string',
            nargs: 1,
            describe: 'start N embedded mock dealers (m1…mN, 1-64), each under /d/NAME/ with its own seeded inventory and lead store',
          })
          .option('port', { type: 'string', nargs: 1, default: '8080', describe: 'proxy port (0 = any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'proxy address' })
          .option('allow-host', {
            type: 'string',
            array: true,
            describe: 'a Host name the proxy answers to besides loopback names when it listens on loopback (*.NAME for subdomains); repeatable',
          })
          .option('scenario', { alias: 's', type: 'string', describe: 'scenario file, or the name of a built-in scenario' })
          .option('watch', { type: 'boolean', default: false, describe: 'reload the scenario file when it changes' })
          .option('seed', { type: 'string', nargs: 1, describe: 'seed for every random choice, 0-4294967295 (overrides the scenario)' })
          // No yargs default: an absent flag lets the scenario's profile: (then the card) decide.
          .option('profile', {
            type: 'string',
            choices: ['auto', '1.3', '2.0'] as const,
            describe: "envelope profile (default: the scenario's profile:, else auto, which reads the dealer card)",
          })
          .option('extension-uri', { type: 'string', describe: 'AAP extension URI named by -32008 (default: from the dealer card)' })
          .option('upstream-timeout', {
            type: 'string',
            nargs: 1,
            default: '30s',
            describe: "how long to wait for the dealer's headers and between body chunks (e.g. 30s, 500ms; 0 = no timeout)",
          })
          .option('stream-idle-timeout', {
            type: 'string',
            nargs: 1,
            default: '0',
            describe: "how long a dealer's event stream (text/event-stream) may go quiet between events, instead of --upstream-timeout (0 = no limit)",
          })
          .option('max-inspect-bytes', {
            type: 'string',
            nargs: 1,
            default: String(1024 * 1024),
            describe: 'request bodies larger than this are forwarded without inspection',
          })
          .option('rewrite-card', {
            type: 'boolean',
            default: true,
            describe: 'point the agent card interface URLs at the proxy (--no-rewrite-card to disable)',
          })
          .option('dry-run', { type: 'boolean', default: false, describe: 'decide and journal faults, but change nothing' })
          .option('check-dealer', {
            type: 'boolean',
            default: false,
            describe: "check the dealer's replies against the AAP conformance rules (journaled; bytes unchanged)",
          })
          .option('allow-header-faults', { type: 'boolean', default: false, describe: 'let requests force a fault with x-aap-chaos: <rule id | AAP code>' })
          .option('admin-port', { type: 'string', nargs: 1, default: '8081', describe: 'admin API port (0 = any free port)' })
          .option('admin-host', { type: 'string', default: '127.0.0.1', describe: 'admin API address (any non-loopback address needs --admin-token)' })
          .option('admin-token', { type: 'string', describe: 'bearer token for the admin API (or AAP_CHAOS_ADMIN_TOKEN)' })
          .option('journal', { type: 'string', describe: 'append one JSON line per request to this file' })
          .option('journal-ring', { type: 'string', nargs: 1, default: '10000', describe: 'journal entries kept in memory for the admin API (≥ 1)' })
          .option('drain-timeout', { type: 'string', nargs: 1, default: '5s', describe: 'how long requests in flight may finish at shutdown' })
          .option('client-key', {
            type: 'string',
            describe: 'who a journal line belongs to: ip or header:NAME (default: the header every rule keys on, else ip)',
          })
          .option('session-header', {
            type: 'string',
            default: 'x-aap-chaos-session',
            describe: 'request header that names a session (its own rule state, journal and report)',
          })
          .option('report', { type: 'boolean', default: false, describe: 'print the buyer report when the proxy stops' })
          .option('mock-profile', {
            type: 'string',
            choices: ['1.3', '2.0'] as const,
            describe: 'profile of the embedded mock dealer (default: the --profile or scenario profile: in force, else 1.3)',
          })
          .option('mock-extension-uri', {
            type: 'string',
            describe: 'AAP extension URI the embedded mock dealer declares (default: the v1.3 URI, or the 2.0 draft placeholder)',
          })
          .option('mock-streaming', { type: 'boolean', default: false, describe: 'let the mock dealer serve SendStreamingMessage' })
          .option('inventory', { type: 'string', describe: 'JSON inventory file for the mock dealer' })
          .option('max-body', { type: 'string', nargs: 1, default: String(10 * 1024 * 1024), describe: 'request bodies larger than this are refused with 413' })
          .option('ca', { type: 'string', describe: 'PEM file of CA certificates to trust for an https:// target' })
          .option('redact-header', {
            type: 'string',
            array: true,
            describe: 'a header whose value is a secret (besides Authorization, cookies, x-api-key); repeatable',
          })
          .option('insecure', { type: 'boolean', default: false, describe: "do not verify the https:// target's certificate" })
          .option('state', {
            type: 'string',
            describe: 'where rule state lives: memory (default) or redis://host:port/db, shared by every replica (or AAP_CHAOS_STATE)',
          })
          .option('replica-id', { type: 'string', describe: "this replica's name in journal lines and /status (default host-pid); also mixed into the seed" })
          .option('record', {
            type: 'string',
            describe: 'append every exchange with the dealer (and its agent card) to this JSONL recording, for aap-chaos replay',
          })
          .option('record-max-bytes', {
            type: 'string',
            nargs: 1,
            default: String(100 * 1024 * 1024),
            describe: 'the recording stops, with a message, when the file would grow past this',
          })
          .option('otlp-endpoint', {
            type: 'string',
            describe: 'OTLP/HTTP collector URL for a span per exchange (/v1/traces is added; or OTEL_EXPORTER_OTLP_ENDPOINT)',
          })
          .option('observe', {
            type: 'boolean',
            default: false,
            describe: 'inject nothing (as --dry-run) and grade live buyer traffic with the report checks, continuously',
          })
          .option('workers', {
            type: 'string',
            nargs: 1,
            default: '1',
            describe: 'worker processes behind the one proxy port (more than 1 needs --state redis://… unless the scenario keeps no state)',
          })
          .option('tls-cert', {
            type: 'string',
            describe: 'PEM certificate: serve buyers over HTTPS (with --tls-key); reloaded on SIGHUP, or on change with --watch',
          })
          .option('tls-key', { type: 'string', describe: 'PEM private key of --tls-cert' })
          .option('admin-tls-cert', { type: 'string', describe: 'PEM certificate: serve the admin API over HTTPS (with --admin-tls-key)' })
          .option('admin-tls-key', { type: 'string', describe: 'PEM private key of --admin-tls-cert' })
          .option('max-ttl', { type: 'string', describe: 'longest time to live of a runtime change (e.g. 1h); with it, a change without ?ttl= gets this one' })
          .option('audit', { type: 'string', describe: 'append one hash-chained JSON line per state-changing admin action to this file' })
          .options(listenerTimeoutFlags)
          .options(scenarioLimitFlags),
      (argv) => runProxy(argv),
    )
    .command(
      'mock',
      'serve the embedded mock dealer alone',
      (y) =>
        y
          .usage('$0 mock [options]\n\nServe the embedded AAP mock dealer on its own (no proxy), e.g. as the --target of a proxy elsewhere.')
          .option('port', { type: 'string', nargs: 1, default: '8090', describe: 'port of the mock dealer (0 = any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'address of the mock dealer' })
          .option('profile', {
            type: 'string',
            choices: ['1.3', '2.0'] as const,
            default: '1.3' as const,
            describe: 'AAP profile the dealer speaks: its card, error envelopes and header rules',
          })
          .option('mock-streaming', {
            type: 'boolean',
            default: false,
            describe: 'also serve SendStreamingMessage as a task stream (the card says streaming: true)',
          })
          .option('inventory', { type: 'string', describe: 'JSON inventory file to serve instead of the generated one' })
          .option('mock-extension-uri', {
            type: 'string',
            describe: 'AAP extension URI the card declares (default: the v1.3 URI, or the 2.0 draft placeholder)',
          })
          .option('seed', { type: 'string', nargs: 1, describe: 'seed of the generated inventory, 0-4294967295 (same seed, same vehicles)' })
          .options(listenerTimeoutFlags),
      async (argv) => {
        let port: number;
        let seed: number | undefined;
        let extensionUri: string | undefined;
        let timeouts: { headerTimeoutMs: number | undefined; bodyTimeoutMs: number | undefined };
        try {
          port = checkOption(RUN_OPTIONS.port, 'port', argv.port, 'flag') as number;
          seed = checkOption(RUN_OPTIONS.seed, 'seed', argv.seed, 'flag') as number | undefined;
          extensionUri = checkOption(MOCK_OPTIONS.extensionUri, 'extensionUri', argv.mockExtensionUri, 'flag') as string | undefined;
          timeouts = {
            headerTimeoutMs: checkOption(RUN_OPTIONS.headerTimeoutMs, 'headerTimeoutMs', argv.headerTimeout, 'flag') as number | undefined,
            bodyTimeoutMs: checkOption(RUN_OPTIONS.bodyTimeoutMs, 'bodyTimeoutMs', argv.bodyTimeout, 'flag') as number | undefined,
          };
        } catch (e) {
          fail((e as Error).message);
        }
        try {
          const mock = await startMockDealer({
            port,
            host: argv.host,
            profile: argv.profile,
            extensionUri,
            streaming: argv.mockStreaming,
            inventoryFile: argv.inventory,
            seed,
            timeouts,
          });
          out(`mock dealer (AAP ${argv.profile}, extension ${mock.dealer.extensionUri}) on ${mock.url}; agent card at ${mock.url}/.well-known/agent-card.json`);
          closeOnSignals({ close: () => mock.close() }, { log: out });
        } catch (e) {
          fail((e as Error).message);
        }
      },
    )
    .command(
      'validate <files..>',
      'check scenario files; exit 0 when all are valid, 1 otherwise',
      (y) => y.positional('files', { type: 'string', array: true, demandOption: true }).options(scenarioLimitFlags),
      async (argv) => {
        applyScenarioLimits(argv);
        const result = await validateFiles(argv.files as string[]);
        out(result.output);
        process.exitCode = result.ok ? 0 : 1;
      },
    )
    .command('exam', 'grade a buyer command under a battery of scenarios: exam [options] -- <buyer command…> (see exam --help)', {}, () => {})
    .command('scenarios', 'list the built-in scenarios', {}, async () => {
      for (const s of await listBuiltinScenarios()) out(`${s.name.padEnd(22)} ${s.description ?? ''}`);
    })
    .command(
      'report <journals..>',
      'grade a buyer from a journal file (or the journals of several replicas, merged by time); exit 1 when a check fails',
      (y) =>
        y
          .positional('journals', { type: 'string', array: true, demandOption: true })
          .option('json', { type: 'boolean', default: false })
          .option('junit', { type: 'string', describe: 'also write JUnit XML to this file' })
          .option('profile', { type: 'string', choices: ['1.3', '2.0'] as const, describe: 'the profile the run used (the version check needs 2.0)' })
          .option('extension-uri', { type: 'string', describe: 'the AAP URI the activation check expects (default: any AAP URI)' })
          .options(thresholdFlags()),
      async (parsed) => {
        const argv = parsed as Record<string, any>;
        const thresholds = Object.fromEntries(THRESHOLD_NAMES.filter((n) => argv[flagName(n)] !== undefined).map((n) => [n, argv[flagName(n)]]));
        const result = await runReportCommand(argv.journals as string[], {
          json: argv.json,
          junit: argv.junit,
          profile: argv.profile,
          extensionUri: argv.extensionUri,
          thresholds,
        });
        out(result.output);
        process.exitCode = result.exitCode;
      },
    )
    .command(
      'audit <action> <file>',
      "audit verify FILE: check an audit log's hash chain; exit 0 when intact, 1 naming the first removed or edited line",
      (y) =>
        y.positional('action', { type: 'string', choices: ['verify'] as const, demandOption: true }).positional('file', { type: 'string', demandOption: true }),
      async (argv) => {
        const result = await runAuditVerify(argv.file as string);
        (result.exitCode === 0 ? out : err)(result.output);
        process.exitCode = result.exitCode;
      },
    )
    .command(
      'check',
      'probe a dealer agent for AAP conformance (under 30 s, a few dozen requests); exit 1 on a MUST violation',
      (y) =>
        y
          .option('target', { type: 'string', demandOption: true, describe: 'dealer agent base URL (its card is at /.well-known/agent-card.json)' })
          .option('profile', {
            type: 'string',
            choices: ['auto', '1.3', '2.0'] as const,
            default: 'auto' as const,
            describe: 'profile to hold the dealer to; auto reads the card',
          })
          .option('rpc-url', { type: 'string', describe: "JSON-RPC URL to probe (default: the card's JSONRPC interface path on --target)" })
          .option('probe-rate-limit', { type: 'boolean', default: false, describe: 'also send repeated calls until the dealer answers RATE_LIMITED' })
          .option('json', { type: 'boolean', default: false, describe: 'print the result, with the wire record, as JSON' })
          .option('junit', { type: 'string', describe: 'also write JUnit XML (one test case per rule) to this file' }),
      async (argv) => {
        // Loaded on use: the probe's modules cost the other commands nothing at start-up.
        const { runCheckCommand } = await import('./commands/check.js');
        const result = await runCheckCommand({
          target: argv.target,
          profile: argv.profile,
          rpcUrl: argv.rpcUrl,
          probeRateLimit: argv.probeRateLimit,
          json: argv.json,
          junit: argv.junit,
        });
        out(result.output);
        process.exitCode = result.exitCode;
      },
    )
    .command(replayCommand({ out, err, fail }))
    .command(
      'ctl <verb> [args..]',
      'drive a running instance: status | use <FILE|NAME> | enable <ID> | disable <ID> | reset | events | journal | report',
      (y) =>
        y
          .positional('verb', { type: 'string', demandOption: true })
          .positional('args', { type: 'string', array: true })
          .option('admin', { type: 'string', describe: 'admin API URL (default http://127.0.0.1:8081)' })
          .option('token', { type: 'string', describe: 'admin token (or AAP_CHAOS_ADMIN_TOKEN)' })
          .option('since', { type: 'string', describe: 'journal: lines after this ULID' })
          .option('limit', { type: 'number', describe: 'journal: at most this many lines' })
          .option('json', { type: 'boolean', describe: 'report: JSON instead of the table' })
          .option('session', { type: 'string', describe: 'report, journal, reset: only this session' }),
      async (argv) => {
        const ac = new AbortController();
        process.once('SIGINT', () => ac.abort());
        const verbArgs = [argv.verb, ...((argv.args as string[] | undefined) ?? [])];
        if (argv.since !== undefined) verbArgs.push('--since', argv.since);
        if (argv.limit !== undefined) verbArgs.push('--limit', String(argv.limit));
        if (argv.json) verbArgs.push('--json');
        if (argv.session !== undefined) verbArgs.push('--session', argv.session);
        process.exitCode = await runCtl(verbArgs, { adminUrl: argv.admin, token: argv.token, out, err, signal: ac.signal });
      },
    )
    .strict()
    // A flag given twice takes its last value (as in most tools), never an array; the parser's own
    // setting for that would also keep only the last of several positional files.
    .middleware(lastValueOfRepeatedFlags, true)
    .fail((msg, e) => {
      if (e) fail(e.message);
      err(`${msg}\n\nRun "${helpCommand()}" for usage.`);
      process.exit(2);
    })
    .help()
    .version(VERSION)
    .parseAsync();
}

/** Options and positionals that are lists; any other repeated flag keeps its last value. */
const LIST_ARGUMENTS = new Set(['_', 'files', 'journals', 'args', 'redact-header', 'redactHeader', 'ignore', 'allow-host', 'allowHost', 'dealer']);
function lastValueOfRepeatedFlags(argv: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(argv)) if (Array.isArray(value) && !LIST_ARGUMENTS.has(key)) argv[key] = value.at(-1);
}

/** The --help line for the command being run: `aap-chaos mock --help` for a bad mock flag. */
function helpCommand(): string {
  const first = hideBin(process.argv).find((a) => !a.startsWith('-'));
  return first !== undefined && COMMANDS.includes(first) ? `aap-chaos ${first} --help` : 'aap-chaos --help';
}

main().catch((e) => fail((e as Error)?.message ?? String(e)));
