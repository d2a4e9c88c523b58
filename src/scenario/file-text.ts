/**
 * Reading a scenario file from disk (`--scenario FILE`, `--watch`, `validate`, `ctl use FILE`): a
 * regular file only, within --max-scenario-bytes, read as common/regular-file.ts reads every file
 * a flag names.
 */
import { readRegularFile } from '../common/regular-file.js';
import { scenarioLimits, tooLargeMessage } from './limits.js';

export type FileText = { ok: true; text: string } | { ok: false; message: string };

export async function readScenarioFileText(file: string): Promise<FileText> {
  const read = readRegularFile(file, { maxBytes: scenarioLimits().maxBytes, what: 'a scenario', tooLarge: tooLargeMessage });
  return read.ok ? { ok: true, text: read.bytes.toString('utf8') } : read;
}
