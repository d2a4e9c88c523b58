/**
 * Reloads a scenario file when it changes. The folder is watched rather than the file because
 * editors save by writing a new file and renaming it over the old one, which ends a watch on
 * the file itself. Bursts of events (write, rename, chmod) are folded into one reload.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readRegularFile } from '../common/regular-file.js';
import path from 'node:path';
import { loadScenarioText, type ScenarioProblem } from './load.js';
import { readScenarioFileText } from './file-text.js';
import { scenarioLimits } from './limits.js';
import type { Scenario } from './types.generated.js';

export interface ScenarioWatcher {
  close(): void;
}

export interface WatchOptions {
  /** Quiet time after the last change before the file is read again. */
  debounceMs?: number;
}

export function watchScenarioFile(
  file: string,
  onValid: (scenario: Scenario) => void,
  onInvalid: (problems: ScenarioProblem[]) => void,
  { debounceMs = 75 }: WatchOptions = {},
): ScenarioWatcher {
  const dir = path.dirname(path.resolve(file));
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // Saving the same text twice (or a touch) is not a change worth reporting.
  // Read synchronously so that a write right after this call is already a change.
  let lastText: string | undefined = readTextIfPresent(file);

  const reload = async () => {
    const read = await readScenarioFileText(file);
    if (!read.ok) {
      // Between an editor's unlink and rename the file is briefly gone; the rename brings another event.
      if (read.message === 'no such file') return;
      if (!closed) onInvalid([{ file, line: 0, col: 0, path: '', message: read.message }]);
      return;
    }
    const { text } = read;
    if (closed || text === lastText) return;
    lastText = text;
    const result = loadScenarioText(text, file);
    if (result.ok) onValid(result.scenario);
    else onInvalid(result.problems);
  };

  const watcher: FSWatcher = watch(dir, (_event, name) => {
    // Some platforms give no file name; then any change in the folder may be ours.
    if (name !== null && name !== base) return;
    clearTimeout(timer);
    // reload() answers every failure through onInvalid; the catch keeps a bug there from ending the process.
    timer = setTimeout(
      () => void reload().catch((e: unknown) => onInvalid([{ file, line: 0, col: 0, path: '', message: `not loaded: ${(e as Error)?.message ?? String(e)}` }])),
      debounceMs,
    );
  });
  watcher.on('error', () => undefined);

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}

/** The text now, if the file is a regular file within the size limit (a FIFO would block a plain read). */
function readTextIfPresent(file: string): string | undefined {
  const read = readRegularFile(file, { maxBytes: scenarioLimits().maxBytes, what: 'a scenario' });
  return read.ok ? read.bytes.toString('utf8') : undefined;
}
