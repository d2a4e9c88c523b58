// Finding the calls that make a temporary directory, for the guards that keep tests and the bench
// from leaving folders in the shared temp directory (test/architecture/temp-dirs.test.ts,
// test/architecture/bench-work-dirs.test.ts).

/** A call of fs's mkdtemp, or of its Sync twin; written `mk[d]temp`, so that this file does not match itself. */
const MKDTEMP_CALL = /\bmk[d]temp(Sync)?\s*\(/;

/** The lines (from 1) of `text` that call either. */
export function mkdtempCalls(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (MKDTEMP_CALL.test(line) ? [i + 1] : []));
}
