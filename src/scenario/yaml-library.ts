/**
 * The full YAML parser (positions, every construct), loaded on first use: most scenarios are read
 * by the fast readers (yaml-text.ts), so a process that reports no scenario problem never pays the
 * parser's load time (about 90 ms of CPU, on every CLI run and every proxy start).
 */
import { createRequire } from 'node:module';

let library: typeof import('yaml') | undefined;

export function yamlLibrary(): typeof import('yaml') {
  library ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return library;
}
