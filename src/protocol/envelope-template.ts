/**
 * An error envelope's JSON text with holes, for an effect that answers the same envelope to every
 * request but for the JSON-RPC id, the error_id and the second it was made: the text is built
 * once, and each reply is a few string concatenations instead of a JSON.stringify of the whole
 * nested envelope (which showed in the injected-error path's profile).
 *
 * The holes are found by building the envelope with marker values and looking for their JSON
 * text; the template is then proven against a second build with other values, byte for byte.
 * Whatever a template could get wrong (a marker that also occurs in a rule's own message, a field
 * derived from the values) fails that proof, and the caller serialises as before.
 */
import { rfc3339, type JsonRpcErrorResponse } from './envelopes.js';
import { rpcIdJson, stringifyJsonRpc, type JsonRpcId } from './rpc-id.js';

/** Builds the envelope for one reply: what the template must reproduce for any id, error id and time. */
export type EnvelopeBuilder = (id: JsonRpcId, errorId: string, now: number) => JsonRpcErrorResponse;

type Hole = 'id' | 'errorId' | 'createdAt';

const MARKERS = { id: '\u0001aap-chaos-id\u0001', errorId: '\u0001aap-chaos-error-id\u0001', createdAt: 0 };
/** The proof's values: another id type, another error id, another second. */
const PROOF = { id: 987654321, errorId: 'err_01PROOF0000000000000000000', createdAt: 1_000_000_000_000 };

export class EnvelopeTemplate {
  private constructor(
    /** The text between the holes: one more than the holes. */
    private readonly parts: readonly string[],
    private readonly holes: readonly Hole[],
  ) {}

  /** The template of what `build` makes, or undefined when one cannot be proven to write the same bytes. */
  static of(build: EnvelopeBuilder): EnvelopeTemplate | undefined {
    const text = stringifyJsonRpc(build(MARKERS.id, MARKERS.errorId, MARKERS.createdAt));
    const found: { at: number; length: number; hole: Hole }[] = [];
    for (const [hole, json] of [
      ['id', JSON.stringify(MARKERS.id)],
      ['errorId', JSON.stringify(MARKERS.errorId)],
      ['createdAt', JSON.stringify(rfc3339(MARKERS.createdAt))],
    ] as const) {
      for (let at = text.indexOf(json); at >= 0; at = text.indexOf(json, at + json.length)) found.push({ at, length: json.length, hole });
    }
    found.sort((a, b) => a.at - b.at);
    const parts: string[] = [];
    let from = 0;
    for (const { at, length } of found) {
      if (at < from) return undefined; // overlapping markers: nothing to trust
      parts.push(text.slice(from, at));
      from = at + length;
    }
    parts.push(text.slice(from));
    const template = new EnvelopeTemplate(
      parts,
      found.map((f) => f.hole),
    );
    const proof = stringifyJsonRpc(build(PROOF.id, PROOF.errorId, PROOF.createdAt));
    return template.render(PROOF.id, PROOF.errorId, PROOF.createdAt) === proof ? template : undefined;
  }

  /** The envelope's text for this id, error id and time: what JSON.stringify of the built envelope writes. */
  render(id: JsonRpcId, errorId: string, now: number): string {
    const { parts, holes } = this;
    let out = parts[0]!;
    for (let i = 0; i < holes.length; i++) {
      const hole = holes[i];
      out += (hole === 'id' ? rpcIdJson(id) : hole === 'errorId' ? JSON.stringify(errorId) : JSON.stringify(rfc3339(now))) + parts[i + 1]!;
    }
    return out;
  }
}
