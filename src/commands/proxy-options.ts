/**
 * The run a proxy command asks for, from its checked flags: what `aap-chaos` and `aap-chaos mcp`
 * (when it runs a proxy of its own) both start. Light on purpose: the runtime is loaded only by
 * the command that starts it.
 */
import { readRegularFile } from '../common/regular-file.js';
import { MAX_PEM_BYTES } from '../proxy/tls.js';
import type { MOCK_OPTIONS, OptionValues, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS } from '../options.js';
import type { RuntimeOptions } from '../runtime.js';
import type { CommandIo } from './flags.js';

/** The proxy command's flags, checked. */
export interface ProxyFlagValues {
  limits: OptionValues<typeof SCENARIO_LIMIT_OPTIONS>;
  run: OptionValues<typeof RUN_OPTIONS>;
  mock: OptionValues<typeof MOCK_OPTIONS>;
  workers: number;
}

/** The run's options from the proxy's flags (also those `aap-chaos mcp` takes when it runs a proxy of its own). */
export function proxyRuntimeOptions(
  argv: Record<string, any>,
  { run, mock }: Pick<ProxyFlagValues, 'run' | 'mock'>,
  io: CommandIo,
  log: (line: string) => void,
): RuntimeOptions {
  return {
    ...run,
    scenario: argv.scenario,
    mock,
    dealerTls: { ca: argv.ca === undefined ? undefined : readCaFile(argv.ca, io), insecure: argv.insecure },
    log,
  };
}

/** --ca FILE: read once at start; a missing or unreadable file is a usage error naming the flag. */
function readCaFile(file: string, io: CommandIo): string {
  const read = readRegularFile(file, { maxBytes: MAX_PEM_BYTES, what: 'a PEM file' });
  if (!read.ok) io.fail(`--ca: ${file}: ${read.message}`);
  const pem = read.bytes.toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) io.fail(`--ca: ${file} holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`);
  return pem;
}
