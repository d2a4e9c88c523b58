/**
 * `match`: compiles a rule's conditions once into small predicates over a classified request.
 * Rules are also indexed by the methods and skills they name, so a request only meets the
 * rules that could match it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { BodyMatcher, HeaderMatcher, Match } from '../scenario/types.generated.js';
import { compileScenarioRegex } from '../scenario/effect-kinds.js';

export type Predicate = (request: ClassifiedRequest, extensionUri: string) => boolean;

function asList(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

/** RFC 6901: resolves a pointer, or returns `missing`. */
const missing = Symbol('missing');
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else if (node && typeof node === 'object' && !Array.isArray(node) && Object.prototype.hasOwnProperty.call(node, token)) node = (node as Record<string, unknown>)[token];
    else return missing;
  }
  return node;
}

function headerPredicate(name: string, m: HeaderMatcher): Predicate {
  const key = name.toLowerCase();
  const read = (r: ClassifiedRequest) => {
    const v = r.headers[key];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  if (typeof m === 'string') return (r) => read(r) === m;
  if (m.absent) return (r) => read(r) === undefined;
  const re = compileScenarioRegex(m.regex!);
  return (r) => {
    const v = read(r);
    return v !== undefined && re.test(v);
  };
}

function bodyPredicate(m: BodyMatcher): Predicate {
  const regex = m.regex !== undefined ? compileScenarioRegex(m.regex) : undefined;
  const test = (value: unknown): boolean => {
    if (m.exists !== undefined) return (value !== missing) === m.exists;
    if (value === missing) return false;
    if (m.equals !== undefined) return isDeepStrictEqual(value, m.equals);
    if (m.in !== undefined) return m.in.some((candidate) => isDeepStrictEqual(value, candidate));
    if (m.regex !== undefined) return typeof value === 'string' && regex!.test(value);
    return false;
  };
  return (r) => test(r.body === undefined ? missing : resolvePointer(r.body, m.pointer));
}

export interface CompiledMatch {
  /** Methods the rule is limited to (undefined: any). */
  methods?: string[];
  /** Skills the rule is limited to (undefined: any). */
  skills?: string[];
  /** The conditions beyond method and skill, which the index already settled. */
  predicates: Predicate[];
}

export function compileMatch(match: Match | undefined): CompiledMatch {
  if (!match) return { predicates: [] };
  const predicates: Predicate[] = [];
  if (match.path !== undefined) predicates.push((r) => r.path === match.path);
  for (const [name, m] of Object.entries(match.headers ?? {})) predicates.push(headerPredicate(name, m));
  for (const m of match.body ?? []) predicates.push(bodyPredicate(m));
  if (match.extension === 'missing') predicates.push((r, uri) => !r.extensions.includes(uri));
  if (match.extension === 'present') predicates.push((r, uri) => r.extensions.includes(uri));
  return { methods: asList(match.method), skills: asList(match.skill), predicates };
}

/**
 * Candidate rules per (method, skill), computed on first sight of each pair and kept in
 * scenario order. A thousand rules for other skills cost one map lookup.
 */
export class RuleIndex<R extends { match: CompiledMatch }> {
  private readonly cache = new Map<string, R[]>();
  constructor(private readonly rules: R[]) {}

  candidates(method: string | undefined, skill: string | undefined): R[] {
    const key = `${method ?? ''}\u0000${skill ?? ''}`;
    let list = this.cache.get(key);
    if (!list) {
      list = this.rules.filter(
        (r) => (!r.match.methods || (method !== undefined && r.match.methods.includes(method))) && (!r.match.skills || (skill !== undefined && r.match.skills.includes(skill))),
      );
      // Unbounded method names from buyers must not grow the cache without limit.
      if (this.cache.size < 1024) this.cache.set(key, list);
    }
    return list;
  }
}
