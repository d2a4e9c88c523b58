/**
 * The full YAML parse, in the two steps `parseDocument` takes, with the nesting measured between
 * them. The first step (the lexer and the parser into a concrete syntax tree) keeps its own stack
 * and never recurses; the second (composing nodes, then values) recurses once per level. So the
 * tree is walked with an explicit stack first, and a document nested past the limit is refused
 * at the offset where it goes too deep, before anything recursive runs. This depth is exact: the
 * same lexer decides what is quoted.
 */
import type { CST, Document, LineCounter } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import { MAX_NESTING_DEPTH } from './limits.js';

export type ParsedYaml = { doc: Document.Parsed; lines: LineCounter } | { tooDeepAt: number; lines: LineCounter };

export function parseYamlDocument(text: string): ParsedYaml {
  const { Composer, LineCounter, Parser, YAMLParseError } = yamlLibrary();
  const lines = new LineCounter();
  const tokens = Array.from(new Parser(lines.addNewLine).parse(text));
  const tooDeepAt = offsetPastNestingLimit(tokens);
  if (tooDeepAt >= 0) return { tooDeepAt, lines };
  const composer = new Composer({ uniqueKeys: true });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      // As parseDocument does: a scenario is one document.
      doc.errors.push(
        new YAMLParseError(
          next.range.slice(0, 2) as [number, number],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  return { doc: doc!, lines };
}

/** Offset of the first collection nested more than the limit deep, or -1. */
function offsetPastNestingLimit(tokens: readonly CST.Token[]): number {
  const stack: Array<[CST.Token, number]> = tokens.map((token) => [token, 0]);
  let first = -1;
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    const children: Array<CST.Token | null | undefined> = [];
    let inner = depth;
    switch (token.type) {
      case 'document':
        children.push(token.value);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection':
        inner = depth + 1;
        if (inner > MAX_NESTING_DEPTH) {
          if (first < 0 || token.offset < first) first = token.offset;
          continue; // nothing deeper needs looking at
        }
        for (const item of token.items) children.push(item.key, item.value);
        break;
      case 'block-scalar':
        children.push(...token.props);
        break;
      default:
        break;
    }
    for (const child of children) if (child) stack.push([child, inner]);
  }
  return first;
}
