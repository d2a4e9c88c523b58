/**
 * A fast reader for the plain subset of YAML that scenario files are written in: block mappings
 * and sequences indented with spaces, one-line scalars (plain, single- or double-quoted) and
 * one-line flow collections, and comments. It builds the same values the full parser (`yaml`,
 * YAML 1.2 core schema) builds from the same text, about twenty times faster, and keeps no
 * positions.
 *
 * It answers `undefined` for anything outside that subset, and for anything the full parser
 * might read differently or refuse (a duplicate key, a multi-line scalar, a tab, an anchor, a tag,
 * a block scalar, a document marker, a complex key …); the caller then parses with the full
 * parser, which also names the line of every problem. So this reader only has to be right about
 * what it accepts: test/scenario/plain-yaml.test.ts compares both parsers on every shipped
 * scenario, on hand-picked edge cases and on thousands of mutated files.
 */

/** Thrown inside the reader when the text leaves the subset; never escapes it. */
class OutsideSubset extends Error {}
const outside = (): never => {
  throw new OutsideSubset();
};

/** Characters YAML does not allow unescaped: C0/C1 controls, a byte-order mark, non-characters, the Unicode line separators. */
const REFUSED_BY_YAML = String.raw`\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFEFF\uFFFE\uFFFF\u2028\u2029`;
const UNPAIRED_SURROGATE = String.raw`[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;
/**
 * Characters the reader leaves to the full parser wherever they occur: those above, unpaired
 * surrogates, and tabs and carriage returns (indentation and line-break rules).
 */
const UNSUPPORTED_CHARACTERS = new RegExp(`[\\t\\r${REFUSED_BY_YAML}]|${UNPAIRED_SURROGATE}`);
/**
 * The same for JSON text, where a tab can only be white space between tokens, and so can a carriage
 * return, but only as part of a CRLF line break: the full parser refuses a lone one there.
 */
export const UNSUPPORTED_IN_JSON = new RegExp(`[${REFUSED_BY_YAML}]|\\r(?!\\n)|${UNPAIRED_SURROGATE}`);

/** Characters that may not start a plain scalar here (YAML indicators, kept conservative). */
const NOT_PLAIN_START = new Set([...'-?:,[]{}#&*!|>\'"%@`']);
/** Characters the reader does not accept inside a plain value of the block context. */
const NOT_IN_BLOCK_PLAIN = /[[\]{}]/;
/** Characters the reader does not accept inside a plain key. */
const NOT_IN_PLAIN_KEY = /[:,[\]{}&*!|>'"%@`\\]| #/;
/** Characters the reader does not accept inside a plain scalar of a flow collection. */
const NOT_IN_FLOW_PLAIN = /[:#[\]{}&*!|>'"%@`\\]/;
/** The full parser's limit on the length of an implicit key. */
const MAX_KEY_LENGTH = 1024;

// The YAML 1.2 core schema's scalar types, in the order the full parser tries them.
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** What a plain scalar means under the core schema. */
function resolvePlain(text: string): unknown {
  const first = text.charCodeAt(0);
  // Only a digit, a sign or a dot can start a number; most scalars are words, settled here without a regex.
  if (!((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46)) {
    if (text.length > 5) return text;
    if (NULL.test(text)) return null;
    if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
    return text;
  }
  if (INT_OCT.test(text)) return parseInt(text.slice(2), 8);
  if (INT.test(text)) return parseInt(text, 10);
  if (INT_HEX.test(text)) return parseInt(text.slice(2), 16);
  if (FLOAT_NAN.test(text)) return text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? -Infinity : Infinity;
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  return text;
}

/** A key must read as a string: a key that reads as a number, null or true is left to the full parser. */
function plainKey(text: string): string {
  if (resolvePlain(text) !== text || text === '<<') outside();
  return text;
}

/** Sets a key the way the full parser's toJS does (an inherited name such as `__proto__` becomes an own property). */
function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  if (Object.prototype.hasOwnProperty.call(map, key)) outside(); // a duplicate key: the full parser reports it
  if (key in map) Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  else map[key] = value;
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' };

/** A quoted scalar starting at `start` of `line`: its value and the index after the closing quote. */
function readQuoted(line: string, start: number): [string, number] {
  const quote = line[start];
  let value = '';
  let i = start + 1;
  for (;;) {
    const close = line.indexOf(quote!, i);
    if (close < 0) outside(); // it goes on past the line: a multi-line scalar
    if (quote === "'") {
      value += line.slice(i, close);
      if (line[close + 1] === "'") {
        value += "'";
        i = close + 2;
        continue;
      }
      return [value, close + 1];
    }
    const escape = line.indexOf('\\', i);
    if (escape < 0 || escape > close) {
      value += line.slice(i, close);
      return [value, close + 1];
    }
    value += line.slice(i, escape);
    const code = line[escape + 1];
    if (code === 'u') {
      const hex = line.slice(escape + 2, escape + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) outside();
      const unit = parseInt(hex, 16);
      if (unit >= 0xd800 && unit <= 0xdfff) outside();
      value += String.fromCharCode(unit);
      i = escape + 6;
    } else {
      const replacement = code === undefined ? undefined : SIMPLE_ESCAPES[code];
      if (replacement === undefined) outside();
      value += replacement;
      i = escape + 2;
    }
  }
}

/** YAML trims spaces (and tabs, which the reader never sees), not every Unicode space as String.trimEnd does. */
function trimSpacesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return text.slice(0, end);
}

/** A plain scalar may start at `at`: not at an indicator, except `-` before a character that is neither space nor flow indicator (`-5`). */
function startsPlain(line: string, at: number): boolean {
  const c = line[at];
  if (c === undefined) return false;
  if (c === '-') {
    const next = line[at + 1];
    return next !== undefined && !' ,[]{}'.includes(next);
  }
  return !NOT_PLAIN_START.has(c);
}

const skipSpaces = (line: string, i: number): number => {
  while (line.charCodeAt(i) === 32) i++;
  return i;
};

/** After a value: only spaces, then the end of the line or a comment after a space. */
function expectLineEnd(line: string, i: number): void {
  const j = skipSpaces(line, i);
  if (j === line.length) return;
  if (line[j] === '#' && j > i) return;
  outside();
}

/** A flow collection (`[…]` or `{…}`) that opens at `start` and closes on the same line. */
function readFlow(line: string, start: number): [unknown, number] {
  const open = line[start];
  const close = open === '[' ? ']' : '}';
  const items: unknown[] = [];
  const map: Record<string, unknown> = {};
  let i = skipSpaces(line, start + 1);
  if (line[i] === close) return [open === '[' ? items : map, i + 1];
  for (;;) {
    if (open === '[') {
      const [value, end] = readFlowValue(line, i);
      items.push(value);
      i = skipSpaces(line, end);
    } else {
      let key: string;
      let end: number;
      if (line[i] === '"' || line[i] === "'") [key, end] = readQuoted(line, i);
      else [key, end] = readFlowPlainKey(line, i);
      // `key: value`, with a space after the colon (the full parser reads `a:b` as one scalar).
      if (line[end] !== ':' || line[end + 1] !== ' ') outside();
      const [value, after] = readFlowValue(line, skipSpaces(line, end + 1));
      setKey(map, key, value);
      i = skipSpaces(line, after);
    }
    if (line[i] === close) return [open === '[' ? items : map, i + 1];
    if (line[i] !== ',') outside();
    i = skipSpaces(line, i + 1);
    if (line[i] === close || line[i] === ',') outside(); // a trailing or empty entry
  }
}

function readFlowValue(line: string, i: number): [unknown, number] {
  const c = line[i];
  if (c === '"' || c === "'") return readQuoted(line, i);
  if (c === '[' || c === '{') return readFlow(line, i);
  const [text, end] = readFlowPlain(line, i, false);
  return [resolvePlain(text), end];
}

/** The text of a plain scalar inside a flow collection: up to the next `,`, `]` or `}` (or, for a key, `:`). */
function readFlowPlain(line: string, start: number, asKey: boolean): [string, number] {
  let end = start;
  while (end < line.length) {
    const c = line[end];
    if (c === ',' || c === ']' || c === '}') break;
    // A key ends at its colon, which the caller checks; a value may not hold one.
    if (asKey && c === ':') break;
    end++;
  }
  const text = trimSpacesEnd(line.slice(start, end));
  if (text === '' || !startsPlain(line, start) || NOT_IN_FLOW_PLAIN.test(text)) outside();
  return [text, end];
}

function readFlowPlainKey(line: string, start: number): [string, number] {
  const [text, end] = readFlowPlain(line, start, true);
  if (text.length !== end - start) outside(); // a space before the colon
  return [plainKey(text), end];
}

/** A line that holds content (blank and comment-only lines are dropped), and its indentation. */
interface Line {
  text: string;
  indent: number;
}

class PlainYamlReader {
  private index = 0;
  private readonly lines: Line[];

  constructor(text: string) {
    const lines: Line[] = [];
    for (const raw of text.split('\n')) {
      const indent = skipSpaces(raw, 0);
      // Blank and comment-only lines carry nothing in the block structure.
      if (indent === raw.length || raw[indent] === '#') continue;
      // Document markers and directives: the full parser handles documents.
      if (raw.startsWith('---', indent) || raw.startsWith('...', indent) || raw[indent] === '%') outside();
      lines.push({ text: raw, indent });
    }
    this.lines = lines;
  }

  read(): unknown {
    const first = this.lines[0];
    if (!first) outside(); // an empty document: the full parser says so with a position
    const value = this.blockNode(first!.indent);
    if (this.index < this.lines.length) outside();
    return value;
  }

  private get current(): Line | undefined {
    return this.lines[this.index];
  }

  private static isSequenceItem(line: Line, at: number): boolean {
    return line.text[at] === '-' && (at + 1 === line.text.length || line.text[at + 1] === ' ');
  }

  /** The block mapping or sequence that starts the current line, at column `indent`. */
  private blockNode(indent: number): unknown {
    return PlainYamlReader.isSequenceItem(this.current!, indent) ? this.blockSequence(indent) : this.blockMapping(indent);
  }

  private blockSequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      const line = this.current!;
      const at = skipSpaces(line.text, indent + 1);
      // `-` alone or `- # comment`: the item is on the next lines.
      if (at === line.text.length || line.text[at] === '#') {
        this.index++;
        items.push(this.nestedOrNull(indent, false));
      } else if (PlainYamlReader.isSequenceItem(line, at)) {
        outside();
      } else if (this.keyAt(line.text, at) !== undefined) {
        items.push(this.blockMapping(at));
      } else {
        items.push(this.inlineValue(line.text, at));
        this.index++;
        this.expectNotDeeper(indent);
      }
      const next = this.current;
      if (!next || next.indent < indent) return items;
      if (next.indent > indent) outside();
      if (!PlainYamlReader.isSequenceItem(next, indent)) return items;
    }
  }

  /** A block mapping at column `indent`; its first key may start mid-line (`- key: value`). */
  private blockMapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      const line = this.current!;
      const key = this.keyAt(line.text, indent);
      if (key === undefined) outside();
      const [name, colon] = key!;
      const valueAt = skipSpaces(line.text, colon + 1);
      let value: unknown;
      if (valueAt === line.text.length || (line.text[valueAt] === '#' && valueAt > colon + 1)) {
        this.index++;
        value = this.nestedOrNull(indent, true);
      } else {
        value = this.inlineValue(line.text, valueAt);
        this.index++;
        this.expectNotDeeper(indent);
      }
      setKey(map, name, value);
      const next = this.current;
      if (!next || next.indent < indent) return map;
      if (next.indent > indent || PlainYamlReader.isSequenceItem(next, indent)) outside();
    }
  }

  /**
   * The value of `key:` or `-` with nothing after it: a block node on the following lines, or null.
   * A mapping's value may be a sequence at the mapping's own indentation (`key:` then `- item`).
   */
  private nestedOrNull(indent: number, ofMapping: boolean): unknown {
    const next = this.current;
    if (!next) return null;
    if (next.indent > indent) return this.blockNode(next.indent);
    if (ofMapping && next.indent === indent && PlainYamlReader.isSequenceItem(next, indent)) return this.blockSequence(indent);
    return null;
  }

  /** After a one-line value, a deeper line would continue it (a multi-line scalar) or be an error. */
  private expectNotDeeper(indent: number): void {
    const next = this.current;
    if (next && next.indent > indent) outside();
  }

  /** The key of a `key: …` entry at column `at`, and the index of its colon; undefined when the line holds no key. */
  private keyAt(line: string, at: number): [string, number] | undefined {
    const c = line[at];
    if (c === '"' || c === "'") {
      const [key, end] = readQuoted(line, at);
      if (line[end] !== ':') return undefined;
      if (end + 1 < line.length && line[end + 1] !== ' ') outside();
      if (end - at > MAX_KEY_LENGTH) outside();
      return [key, end];
    }
    if (c === '[' || c === '{') return undefined;
    // The key ends at the first colon followed by a space or the line's end, unless a comment starts first.
    let colon = line.indexOf(':', at);
    while (colon >= 0 && colon + 1 < line.length && line.charCodeAt(colon + 1) !== 32) colon = line.indexOf(':', colon + 1);
    if (colon < 0) return undefined;
    const comment = line.indexOf(' #', at - 1);
    if (comment >= 0 && comment < colon) return undefined;
    const text = line.slice(at, colon);
    if (text === '' || text.length > MAX_KEY_LENGTH || trimSpacesEnd(text) !== text) outside();
    if (NOT_PLAIN_START.has(text[0]!) || NOT_IN_PLAIN_KEY.test(text)) outside();
    return [plainKey(text), colon];
  }

  /** A scalar or flow collection that fills the rest of the line (a comment may follow). */
  private inlineValue(line: string, at: number): unknown {
    const c = line[at]!;
    if (c === '"' || c === "'") {
      const [value, end] = readQuoted(line, at);
      expectLineEnd(line, end);
      return value;
    }
    if (c === '[' || c === '{') {
      const [value, end] = readFlow(line, at);
      expectLineEnd(line, end);
      return value;
    }
    if (!startsPlain(line, at)) outside();
    let end = line.indexOf(' #', at);
    if (end < 0) end = line.length;
    const text = trimSpacesEnd(line.slice(at, end));
    if (NOT_IN_BLOCK_PLAIN.test(text) || text.includes(': ') || text.endsWith(':')) outside();
    return resolvePlain(text);
  }
}

/** The document as the full parser would build it, or undefined when the text is outside the plain subset. */
export function readPlainYaml(text: string): { value: unknown } | undefined {
  if (UNSUPPORTED_CHARACTERS.test(text)) return undefined;
  try {
    return { value: new PlainYamlReader(text).read() };
  } catch (e) {
    if (e instanceof OutsideSubset) return undefined;
    throw e;
  }
}
