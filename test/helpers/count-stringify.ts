// Counting the JSON.stringify calls a piece of work makes: how the journal tests tell whether a
// line (or a request hash, whose canonical text JSON.stringify writes) was built at all.

/** Counts the JSON.stringify calls that `fn` makes on values `which` picks, while it runs. */
export async function countStringify(which: (value: unknown) => boolean, fn: () => Promise<void> | void): Promise<number> {
  const original = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (which(value)) calls++;
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    await fn();
  } finally {
    JSON.stringify = original;
  }
  return calls;
}

/** A journal entry (what a line's text is written from). */
export const isJournalEntry = (v: unknown): boolean => !!v && typeof v === 'object' && 'http_method' in v && 'dry_run' in v;
