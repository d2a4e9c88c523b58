/**
 * `match`: compiles a rule's conditions once into small predicates over a classified request.
 * Rules are also indexed by the dealer, methods, skills and exact values they name, and by whether
 * they are about the agent card, so a request only meets the rules that could match it.
 */
import { boundReached } from '../common/bound-counts.js';
import { isDeepStrictEqual } from 'node:util';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { BodyMatcher, HeaderMatcher, Match } from '../scenario/types.generated.js';
import { compileScenarioRegex } from '../scenario/regex.js';

export type Predicate = (request: ClassifiedRequest, extensionUri: string) => boolean;

function asList(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

/** RFC 6901 tokens of a pointer, unescaped once when the rule is compiled. */
export function pointerTokens(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const missing = Symbol('missing');
/** Walks the tokens into a document; `missing` when a step does not exist. */
export function resolveTokens(doc: unknown, tokens: readonly string[]): unknown {
  let node: unknown = doc;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return missing;
    if (Array.isArray(node)) {
      const i = Number(token);
      if (!(Number.isInteger(i) && i >= 0 && i < node.length && String(i) === token)) return missing;
      node = node[i];
    } else if (Object.prototype.hasOwnProperty.call(node, token)) node = (node as Record<string, unknown>)[token];
    else return missing;
  }
  return node;
}

const isPrimitive = (v: unknown) => v === null || typeof v !== 'object';

function headerReader(name: string): (r: ClassifiedRequest) => string | undefined {
  const key = name.toLowerCase();
  return (r) => {
    const v = r.headers[key];
    return Array.isArray(v) ? v.join(', ') : v;
  };
}

function headerPredicate(name: string, m: HeaderMatcher): Predicate {
  const read = headerReader(name);
  if (typeof m === 'string') return (r) => read(r) === m;
  if (m.absent) return (r) => read(r) === undefined;
  const re = compileScenarioRegex(m.regex!);
  return (r) => {
    const v = read(r);
    return v !== undefined && re.test(v);
  };
}

function bodyPredicate(m: BodyMatcher): Predicate {
  const tokens = pointerTokens(m.pointer);
  let test: (value: unknown) => boolean;
  if (m.exists !== undefined) test = (value) => (value !== missing) === m.exists;
  else if (m.equals !== undefined) {
    const want = m.equals;
    // Most rules compare a string or number: === is all they need.
    test = isPrimitive(want) ? (value) => value === want : (value) => value !== missing && isDeepStrictEqual(value, want);
  } else if (m.in !== undefined) {
    const candidates = m.in;
    const primitives = candidates.every(isPrimitive) ? new Set(candidates) : undefined;
    test = primitives ? (value) => primitives.has(value) : (value) => value !== missing && candidates.some((c) => isDeepStrictEqual(value, c));
  } else {
    const regex = compileScenarioRegex(m.regex!);
    test = (value) => typeof value === 'string' && regex.test(value);
  }
  return (r) => test(r.body === undefined ? missing : resolveTokens(r.body, tokens));
}

/**
 * One exact-value condition of a rule (a header's exact value, or a body pointer that must equal a
 * string, number, boolean or null), which the index can look up instead of testing rule by rule.
 */
export interface ExactCondition {
  /** Rules with the same `source` read the same value from a request. */
  source: string;
  read: (r: ClassifiedRequest) => unknown;
  value: unknown;
}

export interface CompiledMatch {
  /** Methods the rule is limited to (undefined: any). */
  methods?: string[];
  /** Skills the rule is limited to (undefined: any). */
  skills?: string[];
  /** The first exact-value condition, if any (it stays among the predicates too). */
  exact?: ExactCondition;
  /** The conditions beyond method and skill, which the index already settled. */
  predicates: Predicate[];
  /** Dealers the rule is limited to (undefined: any, and every request of a single-dealer run). */
  dealers?: string[];
  /** A card rule: it meets GET requests for the agent card and nothing else. */
  cardOnly?: boolean;
}

/** Whether a rule limited to some dealers holds for a request to `dealer` (undefined in a single-dealer run). */
export function dealerHolds(match: CompiledMatch, dealer: string | undefined): boolean {
  return match.dealers === undefined || (dealer !== undefined && match.dealers.includes(dealer));
}

export function compileMatch(match: Match | undefined): CompiledMatch {
  if (!match) return { predicates: [] };
  const predicates: Predicate[] = [];
  let exact: ExactCondition | undefined;
  if (match.path !== undefined) predicates.push((r) => r.path === match.path);
  for (const [name, m] of Object.entries(match.headers ?? {})) {
    predicates.push(headerPredicate(name, m));
    if (!exact && typeof m === 'string') exact = { source: `header ${name.toLowerCase()}`, read: headerReader(name), value: m };
  }
  for (const m of match.body ?? []) {
    predicates.push(bodyPredicate(m));
    if (!exact && m.equals !== undefined && isPrimitive(m.equals)) {
      const tokens = pointerTokens(m.pointer);
      exact = { source: `body ${m.pointer}`, read: (r) => (r.body === undefined ? missing : resolveTokens(r.body, tokens)), value: m.equals };
    }
  }
  if (match.extension === 'missing') predicates.push((r, uri) => !r.extensions.includes(uri));
  if (match.extension === 'present') predicates.push((r, uri) => r.extensions.includes(uri));
  return { methods: asList(match.method), skills: asList(match.skill), exact, predicates, dealers: asList(match.dealer) };
}

interface CandidateSet<R> {
  /** Rules without an exact-value condition: always candidates. */
  plain: R[];
  /** Rules with one, grouped by what they read, then by the value they want. */
  exact: { read: (r: ClassifiedRequest) => unknown; byValue: Map<unknown, R[]> }[];
  order: Map<R, number>;
}

/** Groups per request shape kept at most (method and skill names come from buyers). */
const MAX_GROUPS = 1024;

/** What decides a request's group: the rules it can meet are the same for every request of one shape. */
interface Shape {
  dealer: string | undefined;
  method: string | undefined;
  skill: string | undefined;
  card: boolean;
}

/**
 * Candidate rules, in scenario order. Rules are grouped per request shape (dealer, JSON-RPC
 * method, skill, and whether it asks for the agent card) on first sight of each shape, and within
 * a group rules with an exact header or body value are looked up by the request's value, once per
 * header or pointer: a thousand rules that cannot match cost a few map lookups and no allocation.
 * The group is found through nested maps keyed by the values themselves, so no key text is built
 * per request (a joined key cost a string, its flattening and its hash on every request).
 */
export class RuleIndex<R extends { match: CompiledMatch }> {
  private readonly groups = new Map<string | undefined, Map<string | undefined, Map<string | undefined, [CandidateSet<R>?, CandidateSet<R>?]>>>();
  private groupCount = 0;
  constructor(private readonly rules: R[]) {}

  /** The rules that may match `request` for `dealer` (undefined in a single-dealer run), in scenario order. */
  candidates(request: ClassifiedRequest, dealer: string | undefined, card: boolean): R[] {
    const method = request.rpcMethod;
    const skill = request.skill;
    let byMethod = this.groups.get(dealer);
    let bySkill = byMethod?.get(method);
    let pair = bySkill?.get(skill);
    let set = pair?.[card ? 1 : 0];
    if (!set) {
      set = this.group(this.rules.filter((r) => holds(r.match, { dealer, method, skill, card })));
      // Unbounded method names from buyers must not grow the index without limit.
      if (this.groupCount < MAX_GROUPS) {
        this.groupCount++;
        if (!byMethod) this.groups.set(dealer, (byMethod = new Map()));
        if (!bySkill) byMethod.set(method, (bySkill = new Map()));
        if (!pair) bySkill.set(skill, (pair = []));
        pair[card ? 1 : 0] = set;
      } else boundReached('rule_index_pairs');
    }
    if (set.exact.length === 0) return set.plain;
    let hits: R[] | undefined;
    for (const group of set.exact) {
      const found = group.byValue.get(group.read(request));
      if (found) hits = hits ? hits.concat(found) : found;
    }
    if (!hits) return set.plain;
    const order = set.order;
    return set.plain.concat(hits).sort((a, b) => order.get(a)! - order.get(b)!);
  }

  private group(list: R[]): CandidateSet<R> {
    const set: CandidateSet<R> = { plain: [], exact: [], order: new Map(list.map((r, i) => [r, i])) };
    const bySource = new Map<string, CandidateSet<R>['exact'][number]>();
    for (const rule of list) {
      const exact = rule.match.exact;
      if (!exact) {
        set.plain.push(rule);
        continue;
      }
      let group = bySource.get(exact.source);
      if (!group) {
        group = { read: exact.read, byValue: new Map() };
        bySource.set(exact.source, group);
        set.exact.push(group);
      }
      const same = group.byValue.get(exact.value);
      if (same) same.push(rule);
      else group.byValue.set(exact.value, [rule]);
    }
    return set;
  }
}

/** Whether a rule's indexed conditions (dealer, method, skill, card) hold for requests of one shape. */
function holds(match: CompiledMatch, shape: Shape): boolean {
  return (
    dealerHolds(match, shape.dealer) &&
    (!match.methods || (shape.method !== undefined && match.methods.includes(shape.method))) &&
    (!match.skills || (shape.skill !== undefined && match.skills.includes(shape.skill))) &&
    (!match.cardOnly || shape.card)
  );
}

/** `every` without the callback closure a call of it would allocate per rule. */
export function predicatesHold(predicates: readonly Predicate[], request: ClassifiedRequest, extensionUri: string): boolean {
  for (let i = 0; i < predicates.length; i++) if (!predicates[i]!(request, extensionUri)) return false;
  return true;
}

/**
 * Whether a rule's whole `match` holds, condition by condition, without the index: what the index
 * must agree with (test/engine/rule-index.test.ts compares the two over generated scenarios).
 */
export function matchHolds(match: CompiledMatch, request: ClassifiedRequest, extensionUri: string, dealer: string | undefined, card: boolean): boolean {
  return holds(match, { dealer, method: request.rpcMethod, skill: request.skill, card }) && predicatesHold(match.predicates, request, extensionUri);
}
