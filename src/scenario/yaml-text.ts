/**
 * Scenario text in YAML is read first by js-yaml, several times faster than the full parser (`yaml`,
 * which keeps positions for problem messages) and building the same values, with its core schema's
 * numbers held to the YAML 1.2 core patterns the full parser uses (js-yaml also reads `0b11`, `+0x1F`
 * and `-0o7` as numbers, and `+.5` as a string). Text the two might read differently — anchors and
 * aliases (js-yaml shares one object where the full parser copies, under a limit), tags, directives,
 * complex keys, implicit keys past the full parser's 1024-character limit, characters YAML refuses —
 * is left to the full parser, and so is any text js-yaml refuses. A text read here is then checked
 * like any other; only a valid scenario skips the full parse, which places each problem on its line.
 * test/scenario/fast-readers.test.ts compares both parsers on every shipped scenario, on hand-picked
 * edge cases and on thousands of mutated files.
 */
import { CORE_SCHEMA, load, Type } from 'js-yaml';

/** Characters YAML does not allow unescaped: C0/C1 controls, a byte-order mark, non-characters, the Unicode line separators. */
const REFUSED_BY_YAML = String.raw`\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFEFF\uFFFE\uFFFF\u2028\u2029`;
const UNPAIRED_SURROGATE = String.raw`[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;

/** The same for JSON text, where a carriage return is white space only as part of a CRLF line break: the full parser refuses a lone one. */
export const UNSUPPORTED_IN_JSON = new RegExp(`[${REFUSED_BY_YAML}]|\\r(?!\\n)|${UNPAIRED_SURROGATE}`);

/**
 * What the reader leaves to the full parser: refused characters, a lone carriage return, a
 * directive, an anchor, alias or tag where a node may start, a complex key (`? `, or a flow
 * collection before `:`), a null key (js-yaml names it "null", the full parser ""), a comment
 * right after a quote or bracket (js-yaml takes it, the full parser refuses it), a tab in the
 * indentation, an empty block sequence entry (after one, js-yaml lets the next entry's indentation
 * slip). A line long enough to hold an implicit key past 1024 characters is found by `hasLongLine`
 * (as a regex it would cost more than the parse). It errs towards leaving text alone: a `*` or `!`
 * after a space inside a quoted string costs only the fast path.
 */
const LEFT_TO_FULL_PARSER = new RegExp(
  [
    `[${REFUSED_BY_YAML}]`,
    String.raw`\r(?!\n)`,
    UNPAIRED_SURROGATE,
    '^%',
    String.raw`(?:^|[\s[\]{},])[&*!]`,
    String.raw`^[ \t-]*\?(?:[ \t]|$)`,
    String.raw`[\]}][ \t]*:(?:[ \t]|$)`,
    String.raw`(?:^|[\s{,[-])(?:~|null|Null|NULL)?[ \t]*:(?:[ \t]|$)`,
    String.raw`["'\]}]#`,
    String.raw`^ *\t`,
    String.raw`^[ \t]*-[ \t]*(?:#.*)?$`,
  ].join('|'),
  'm',
);

// The YAML 1.2 core schema's numbers, as the full parser resolves them (it tries int before float).
const INT_OCT = /^0o[0-7]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT_SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

const coreInt = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string) => INT_OCT.test(data) || INT_HEX.test(data) || INT.test(data),
  construct: (data: string) => (INT_OCT.test(data) ? parseInt(data.slice(2), 8) : INT_HEX.test(data) ? parseInt(data.slice(2), 16) : Number(data)),
});

const coreFloat = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: string) => FLOAT_SPECIAL.test(data) || FLOAT.test(data),
  construct: (data: string) => {
    if (!FLOAT_SPECIAL.test(data)) return Number(data);
    if (/nan/i.test(data)) return NaN;
    return data.startsWith('-') ? -Infinity : Infinity;
  },
});

/** js-yaml's core schema, its int and float replaced (same tag, same place) by the ones above. */
const SCENARIO_SCHEMA = CORE_SCHEMA.extend({ implicit: [coreInt, coreFloat] });

const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Whether the text holds a quoted scalar over several lines, a flow collection as a key of a
 * flow mapping (`{ [a], b }`), or a flow collection whose next line is not indented past the line
 * it opened on: js-yaml reads these where the full parser refuses them or reads them otherwise. One
 * pass, skipping comments and quoted scalars; a quote opens one only where a scalar starts (not the
 * apostrophe in "don't").
 */
function hasFormsReadLeniently(text: string): boolean {
  const open: string[] = [];
  let keyExpected = false;
  let flowIndent = 0;
  // Only these characters matter; the scan jumps from one to the next.
  const SPECIAL = /["'#[\]{},\n]/g;
  let last = -1;
  for (let m = SPECIAL.exec(text); m !== null; m = SPECIAL.exec(text)) {
    const i = m.index;
    const c = text[i]!;
    const prev = text[i - 1];
    if (keyExpected && text.slice(last + 1, i).trim() !== '') keyExpected = false;
    last = i;
    if (c === '\n') {
      if (open.length === 0) continue;
      let indent = 0;
      while (text[i + 1 + indent] === ' ') indent++;
      const next = text[i + 1 + indent];
      if (indent <= flowIndent && next !== undefined && next !== '\n' && next !== '\r') return true;
    } else if ((c === '"' || c === "'") && (i === 0 || isBlank(prev) || prev === '[' || prev === '{' || prev === ',')) {
      let j = i + 1;
      for (; j < text.length; j++) {
        const d = text[j];
        if (d === '\n' || d === '\r') return true;
        if (c === '"' && d === '\\') j++;
        else if (d === c && c === "'" && text[j + 1] === "'") j++;
        else if (d === c) break;
      }
      if (j >= text.length) return true;
      SPECIAL.lastIndex = j + 1;
      last = j;
      keyExpected = false;
    } else if (c === '#' && (i === 0 || isBlank(prev))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      SPECIAL.lastIndex = end;
      last = end - 1;
    } else if (c === '[' || c === '{') {
      if (keyExpected) return true;
      if (open.length === 0) {
        const lineStart = text.lastIndexOf('\n', i - 1) + 1;
        flowIndent = 0;
        while (text[lineStart + flowIndent] === ' ') flowIndent++;
      }
      open.push(c);
      keyExpected = c === '{';
    } else if (c === ']' || c === '}') {
      open.pop();
      keyExpected = false;
    } else if (c === ',') {
      keyExpected = open.at(-1) === '{';
    }
  }
  return false;
}

/** The full parser refuses an implicit key longer than 1024 characters; js-yaml takes it. */
const MAX_IMPLICIT_KEY = 1024;

function hasLongLine(text: string): boolean {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start > MAX_IMPLICIT_KEY) return true;
    start = end + 1;
  }
  return false;
}

/** The document js-yaml builds from `text`, or undefined when the full parser must read it. */
export function readYamlText(text: string): { value: unknown } | undefined {
  if (LEFT_TO_FULL_PARSER.test(text) || hasLongLine(text) || hasFormsReadLeniently(text)) return undefined;
  try {
    // An empty document (or one of comments only) is null to the full parser.
    return { value: load(text, { schema: SCENARIO_SCHEMA }) ?? null };
  } catch {
    return undefined;
  }
}
