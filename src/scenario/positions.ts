/**
 * Maps a JSON Pointer into a parsed YAML (or JSON) document back to the line and column the
 * user wrote it at, so every problem can name its place in the file.
 */
import type { Document, LineCounter, Node } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

export interface Position {
  line: number;
  col: number;
}

/** Where in the offending node a problem points: at its value, or at the key that names it. */
export type Anchor = 'value' | 'key';

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function joinPointer(base: string, ...segments: Array<string | number>): string {
  return base + segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export class DocumentPositions {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** Position of the node at `pointer`, or of its deepest existing ancestor. */
  locate(pointer: string, anchor: Anchor = 'value'): Position {
    let node: unknown = this.doc.contents;
    let keyNode: unknown;
    const { isMap, isPair, isScalar, isSeq } = yamlLibrary();
    for (const segment of splitPointer(pointer)) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === segment);
        if (!pair) break;
        keyNode = pair.key;
        // `key:` with nothing after it has no value node; the key is the best place to point at.
        node = pair.value ?? pair.key;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)];
        if (item === undefined || !/^\d+$/.test(segment)) break;
        keyNode = undefined;
        node = item;
      } else {
        break;
      }
    }
    const target = (anchor === 'key' && keyNode ? keyNode : node) as Node | null | undefined;
    return this.at(target?.range?.[0] ?? 0);
  }

  at(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, col };
  }
}
