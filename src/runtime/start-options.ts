/** The first step of a run: everything that can be wrong with its options, found before anything starts. */
import { ADMIN_TOKEN_ENV, assertAdminExposureAllowed } from '../control/auth.js';
import { readServerTls, type ServerTlsFiles } from '../control/server-tls.js';
import { tracingSettings } from '../control/tracing/settings.js';
import type { TracingSettings } from '../control/tracing/types.js';
import type { ListenerTimeouts } from '../http/listener-limits.js';
import { checkOptions, OptionError } from '../options.js';
import { sessionHeaderRefusal } from '../option-values.js';
import type { CheckedOptions, RuntimeOptions } from './types.js';

/** The checked options, and what the steps after read from them. */
export interface StartOptions {
  opts: CheckedOptions;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  adminHost: string;
  adminToken: string | undefined;
  tls: ServerTlsFiles;
  traces: TracingSettings | undefined;
  observe: boolean;
  timeouts: ListenerTimeouts;
}

export function checkStartOptions(given: RuntimeOptions): StartOptions {
  // Every option is checked the way its flag is, before anything starts.
  const opts = checkOptions(given as RuntimeOptions & Record<string, unknown>, 'library') as CheckedOptions;
  const env = opts.env ?? process.env;
  const adminHost = opts.adminHost ?? '127.0.0.1';
  const sessionRefusal = sessionHeaderRefusal(opts.sessionHeader, opts.redactHeaders);
  if (sessionRefusal) throw new OptionError(sessionRefusal);
  const adminToken = opts.adminToken || env[ADMIN_TOKEN_ENV] || undefined;
  assertAdminExposureAllowed(adminHost, adminToken);
  checkRotationOptions(opts);
  return {
    opts,
    log: opts.log ?? (() => {}),
    env,
    adminHost,
    adminToken,
    // Read and checked before anything starts: a bad file is one line, and nothing listens.
    tls: readServerTls(opts),
    // The endpoint option was checked above; the variables are checked here, each named when wrong.
    traces: tracingSettings(opts.otlpEndpoint, env),
    observe: opts.observe ?? false,
    timeouts: { headerTimeoutMs: opts.headerTimeoutMs, bodyTimeoutMs: opts.bodyTimeoutMs },
  };
}

/** Rotation settings without the file they rotate are a mistake, not a no-op. */
function checkRotationOptions(opts: CheckedOptions): void {
  for (const [file, flag, maxBytes, compress] of [
    [opts.journalFile, 'journal', opts.journalMaxBytes, opts.journalCompress],
    [opts.auditFile, 'audit', opts.auditMaxBytes, opts.auditCompress],
  ] as const) {
    if (maxBytes !== undefined && file === undefined) throw new OptionError(`--${flag}-max-bytes: there is no --${flag} FILE to rotate`);
    if (compress && maxBytes === undefined)
      throw new OptionError(`--${flag}-compress: compresses the files --${flag}-max-bytes rotates; give --${flag}-max-bytes too`);
  }
}
