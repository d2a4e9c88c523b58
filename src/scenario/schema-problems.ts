/**
 * Turns ajv's errors into one short sentence per problem, each tied to the JSON Pointer of the
 * value (or key) the user has to change. ajv reports from the schema's point of view; a person
 * editing YAML wants "unknown key "foo"" at the key, not "must NOT have additional properties"
 * at its parent.
 */
import { definitionValidator, resolveSchemaRef, validateScenarioDocument, type SchemaError } from './schema.js';
import { joinPointer, type Anchor } from './positions.js';

export interface LocatedMessage {
  path: string;
  anchor: Anchor;
  message: string;
}

/** Validates a whole scenario document against the schema. */
export function schemaProblems(document: unknown): LocatedMessage[] {
  validateScenarioDocument(document);
  return describeErrors(validateScenarioDocument.errors ?? [], '');
}

function describeErrors(errors: readonly SchemaError[], base: string): LocatedMessage[] {
  const rebased = errors.map((e) => ({ ...e, instancePath: base + e.instancePath }));
  const out: LocatedMessage[] = [];
  // An anyOf (error, network, header matcher) is explained once, by the branch that fits the
  // value's type, instead of by every branch that failed.
  const unions = rebased.filter((e) => e.keyword === 'anyOf');
  const insideUnion = (e: SchemaError) => unions.some((u) => e.instancePath === u.instancePath || e.instancePath.startsWith(u.instancePath + '/'));
  for (const union of unions) out.push(...describeUnion(union));
  // "exactly one of …" says nothing new next to a missing or unknown key of the same object.
  const keyProblemAt = new Set(rebased.filter((e) => e.keyword === 'required' || e.keyword === 'additionalProperties').map((e) => e.instancePath));
  for (const error of rebased) {
    // A bad property name is reported once, by its propertyNames error, at the key itself.
    if (insideUnion(error) || error.propertyName !== undefined) continue;
    if ((error.keyword === 'minProperties' || error.keyword === 'maxProperties') && keyProblemAt.has(error.instancePath)) continue;
    const message = describeError(error);
    if (message) out.push(message);
  }
  return out;
}

function describeUnion(error: SchemaError): LocatedMessage[] {
  const branches = (error.schema as Array<Record<string, unknown>>).map((b) => (typeof b.$ref === 'string' ? { ...resolveSchemaRef(b.$ref), ref: b.$ref } : b));
  const fitting = branches.find((b) => branchAcceptsType(b, error.data));
  if (fitting) {
    const name = typeof fitting.ref === 'string' ? fitting.ref.slice('#/$defs/'.length) : undefined;
    if (name) {
      const validate = definitionValidator(name);
      validate(error.data);
      return describeErrors(validate.errors ?? [], error.instancePath);
    }
    if (Array.isArray(fitting.enum)) return [{ path: error.instancePath, anchor: 'value', message: enumMessage(fitting.enum, error.data) }];
  }
  const kinds = branches.map(describeBranch);
  return [{ path: error.instancePath, anchor: 'value', message: `must be ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}` }];
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function branchAcceptsType(branch: Record<string, unknown>, value: unknown): boolean {
  if (Array.isArray(branch.enum)) return branch.enum.some((v) => jsonType(v) === jsonType(value));
  const types = ([] as unknown[]).concat(branch.type ?? []);
  return types.includes(jsonType(value)) || (types.includes('number') && typeof value === 'number');
}

function describeBranch(branch: Record<string, unknown>): string {
  if (Array.isArray(branch.enum)) return `one of ${listValues(branch.enum)}`;
  if (branch.type === 'object') return 'an object';
  return `a ${String(branch.type)}`;
}

/** Enum values as a user types them: bare words, quoted only where YAML would read a number. */
function listValues(allowed: readonly unknown[]): string {
  return allowed.map((v) => (typeof v === 'string' && !/^[\d.]+$/.test(v) ? v : JSON.stringify(v))).join(', ');
}

function enumMessage(allowed: readonly unknown[], value: unknown): string {
  const list = listValues(allowed);
  if (typeof value === 'string') return `unknown value "${value}"; expected one of: ${list}`;
  const versionLike = allowed.some((v) => typeof v === 'string' && /^[\d.]+$/.test(v));
  const hint = typeof value === 'number' && versionLike ? ' (put it in quotes)' : '';
  return `must be one of: ${list}${hint}`;
}

/** What the schema's patterns mean, in words; a pattern missing here falls back to ajv's text. */
const PATTERN_MESSAGES: Record<string, string> = {
  '^[A-Za-z0-9_.-]+$': 'may contain only letters, digits, ".", "_" and "-"',
  '^(ip|skill|header:.*)$': 'must be ip, skill or header:NAME',
  '^/': 'must start with "/"',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

function describeError(error: SchemaError): LocatedMessage | undefined {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const at = (message: string, anchor: Anchor = 'value'): LocatedMessage => ({ path, anchor, message });
  switch (error.keyword) {
    case 'if':
      return undefined; // the failing `then` explains itself
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return { path: joinPointer(path, key), anchor: 'key', message: `unknown key "${key}"` };
    }
    case 'required': {
      const key = String(params.missingProperty);
      return at(`missing required key "${key}"`);
    }
    case 'propertyNames': {
      const name = String(params.propertyName);
      return { path: joinPointer(path, name), anchor: 'key', message: `"${name}" is not a valid header name` };
    }
    case 'type': {
      const wanted = String(params.type)
        .split(',')
        .map((t) => TYPE_NAMES[t] ?? t);
      const quoteHint = wanted.includes('a string') && typeof error.data === 'number' ? ' (put it in quotes)' : '';
      return at(`must be ${wanted.join(' or ')}${quoteHint}`);
    }
    case 'enum':
      return at(enumMessage(params.allowedValues as unknown[], error.data));
    case 'const':
      return at(`must be ${JSON.stringify(params.allowedValue)}`);
    case 'format':
      if (params.format === 'json-pointer')
        return at(`"${String(error.data)}" is not a JSON Pointer (it must be empty or start with "/"; write "~" as ~0 and "/" as ~1)`);
      return at(`must be a valid ${String(params.format)}`);
    case 'pattern':
      return at(PATTERN_MESSAGES[String(params.pattern)] ?? error.message ?? 'has the wrong form');
    case 'minLength':
    case 'minItems':
      return at(params.limit === 1 ? 'must not be empty' : (error.message ?? 'is too short'));
    case 'minProperties':
    case 'maxProperties':
      return at(propertyCountMessage(error));
    default:
      return at(error.message ?? `fails ${error.keyword}`);
  }
}

/**
 * The object schemas bound their property count to say "exactly one of …" or "at least one of …";
 * the sentence names the keys, read from the schema itself.
 */
function propertyCountMessage(error: SchemaError): string {
  const schema = error.parentSchema as { properties?: Record<string, unknown>; required?: string[]; minProperties?: number; maxProperties?: number };
  const required = schema.required ?? [];
  const optional = Object.keys(schema.properties ?? {}).filter((k) => !required.includes(k));
  const names = optional.map((k) => `"${k}"`).join(', ');
  if (schema.minProperties === schema.maxProperties && schema.minProperties === required.length + 1) return `must have exactly one of ${names}`;
  if (error.keyword === 'minProperties') return `must have at least one of ${names}`;
  return error.message ?? 'has too many keys';
}
