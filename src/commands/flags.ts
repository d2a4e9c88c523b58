/**
 * What every command module shares: where its output goes, and its flags made from the rows of
 * src/options.ts (the yargs declaration from the row, the value checked by the row's `parse`).
 */
import type { Argv, Options } from 'yargs';
import { checkOption, OptionError, readFlags, type FlagSpec, type OptionSpec, type OptionValues } from '../options.js';

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Ends the run with one line (`aap-chaos: …`) and an exit code, 2 unless given. */
  fail: (message: string, code?: number) => never;
}

/** A table of flags, in the order --help lists them. */
export type FlagTable = Record<string, FlagSpec | OptionSpec>;

/** The yargs declaration of each row, under its flag. */
export function yargsOptions(...tables: FlagTable[]): Record<string, Options> {
  const options: Record<string, Options> = {};
  for (const table of tables)
    for (const { flag, type, default: value, describe, array, choices, nargs, alias } of Object.values(table)) {
      const option: Options = { type, describe };
      if (value !== undefined) option.default = value;
      if (array) option.array = true;
      if (choices) option.choices = [...choices];
      if (nargs) option.nargs = nargs;
      if (alias) option.alias = alias;
      options[flag] = option;
    }
  return options;
}

/**
 * Declares the rows' flags on a command. A value outside a row's choices is refused the way every
 * bad value is (one line naming the flag), before yargs would answer with its own several lines.
 */
export function declareFlags(y: Argv, io: CommandIo, ...tables: FlagTable[]): Argv {
  const withChoices = tables.flatMap((table) => Object.entries(table)).filter(([, spec]) => spec.choices && 'parse' in spec) as [string, OptionSpec][];
  return y.options(yargsOptions(...tables)).middleware((argv) => {
    for (const [name, spec] of withChoices) checked(io, () => checkOption(spec, name, argv[spec.flag], 'flag'));
  }, true);
}

/** The options of `table` from the parsed flags, checked; a bad value ends the run with one line naming its flag. */
export function flagValues<T extends Record<string, OptionSpec>>(io: CommandIo, table: T, argv: Record<string, unknown>): OptionValues<T> {
  return checked(io, () => readFlags(table, argv));
}

/** Runs `read`; an OptionError ends the run with its one line. */
export function checked<T>(io: CommandIo, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof OptionError) io.fail(e.message);
    throw e;
  }
}
