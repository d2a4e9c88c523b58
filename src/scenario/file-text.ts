/**
 * Reading a scenario file from disk (`--scenario FILE`, `--watch`, `validate`, `ctl use FILE`): a
 * regular file only, within --max-scenario-bytes while it is read (src/common/regular-file.ts).
 */
import { readRegularFile } from '../common/regular-file.js';
import { scenarioLimits, tooLargeMessage } from './limits.js';

export type FileText = { ok: true; text: string } | { ok: false; message: string };

export async function readScenarioFileText(file: string): Promise<FileText> {
  const read = readRegularFile(file, { maxBytes: scenarioLimits().maxBytes, what: 'a scenario', tooLarge: tooLargeMessage });
  return read.ok ? { ok: true, text: read.bytes.toString('utf8') } : { ok: false, message: read.problem };
}
