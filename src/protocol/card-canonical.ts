/**
 * The bytes an A2A v1.0 agent-card signature covers (A2A v1.0, "Agent Card Signing"): the card
 * read as the v1.0 AgentCard message (fields outside the schema dropped, proto3 defaults left
 * out, snake_case names read as their camelCase twins), without `signatures`, with empty values
 * removed, then serialized by the JSON Canonicalization Scheme (RFC 8785, the `canonicalize`
 * package). Signers and verifiers must agree on every one of these steps, so the field table
 * below mirrors the v1.0 schema exactly as the @a2a-js/sdk reads it
 * (`test/protocol/card-canonical.test.ts` compares the two byte for byte).
 */
import canonicalize from 'canonicalize';

/** A card that cannot be read as an AgentCard message, or holds text JCS refuses (a lone surrogate). */
export class CardCanonicalError extends Error {
  override name = 'CardCanonicalError';
}

/**
 * How one field is read: `string` (any value as its text), `bool` (proto3: false is the default
 * and left out), `optBool` (an optional bool: false is kept), `strings` (repeated string),
 * `struct` (any object, kept as it is), `stringMap`, and a message name alone, or with `[]` for a
 * repeated field or `{}` for a map of messages.
 */
type FieldKind = string;
/** [camelCase name, kind, the snake_case name the reader also accepts]. */
type Field = readonly [string, FieldKind, string?];
/** A oneof: the first of its members that is set, in this order. */
type OneOf = { readonly oneOf: readonly Field[] };

const scopesFlow = (...urls: Field[]): readonly Field[] => [...urls, ['refreshUrl', 'string', 'refresh_url'], ['scopes', 'stringMap']];

const MESSAGES: Readonly<Record<string, readonly Field[] | OneOf>> = {
  AgentCard: [
    ['name', 'string'],
    ['description', 'string'],
    ['supportedInterfaces', 'AgentInterface[]', 'supported_interfaces'],
    ['provider', 'AgentProvider'],
    ['version', 'string'],
    ['documentationUrl', 'string', 'documentation_url'],
    ['capabilities', 'AgentCapabilities'],
    ['securitySchemes', 'SecurityScheme{}', 'security_schemes'],
    ['securityRequirements', 'SecurityRequirement[]', 'security_requirements'],
    ['defaultInputModes', 'strings', 'default_input_modes'],
    ['defaultOutputModes', 'strings', 'default_output_modes'],
    ['skills', 'AgentSkill[]'],
    ['signatures', 'AgentCardSignature[]'],
    ['iconUrl', 'string', 'icon_url'],
  ],
  AgentInterface: [
    ['url', 'string'],
    ['protocolBinding', 'string', 'protocol_binding'],
    ['tenant', 'string'],
    ['protocolVersion', 'string', 'protocol_version'],
  ],
  AgentProvider: [
    ['url', 'string'],
    ['organization', 'string'],
  ],
  AgentCapabilities: [
    ['streaming', 'optBool'],
    ['pushNotifications', 'optBool', 'push_notifications'],
    ['extensions', 'AgentExtension[]'],
    ['extendedAgentCard', 'optBool', 'extended_agent_card'],
  ],
  AgentExtension: [
    ['uri', 'string'],
    ['description', 'string'],
    ['required', 'bool'],
    ['params', 'struct'],
  ],
  AgentSkill: [
    ['id', 'string'],
    ['name', 'string'],
    ['description', 'string'],
    ['tags', 'strings'],
    ['examples', 'strings'],
    ['inputModes', 'strings', 'input_modes'],
    ['outputModes', 'strings', 'output_modes'],
    ['securityRequirements', 'SecurityRequirement[]', 'security_requirements'],
  ],
  AgentCardSignature: [
    ['protected', 'string'],
    ['signature', 'string'],
    ['header', 'struct'],
  ],
  SecurityRequirement: [['schemes', 'StringList{}']],
  StringList: [['list', 'strings']],
  SecurityScheme: {
    oneOf: [
      ['apiKeySecurityScheme', 'APIKeySecurityScheme', 'api_key_security_scheme'],
      ['httpAuthSecurityScheme', 'HTTPAuthSecurityScheme', 'http_auth_security_scheme'],
      ['oauth2SecurityScheme', 'OAuth2SecurityScheme', 'oauth2_security_scheme'],
      ['openIdConnectSecurityScheme', 'OpenIdConnectSecurityScheme', 'open_id_connect_security_scheme'],
      ['mtlsSecurityScheme', 'MutualTlsSecurityScheme', 'mtls_security_scheme'],
    ],
  },
  APIKeySecurityScheme: [
    ['description', 'string'],
    ['location', 'string'],
    ['name', 'string'],
  ],
  HTTPAuthSecurityScheme: [
    ['description', 'string'],
    ['scheme', 'string'],
    ['bearerFormat', 'string', 'bearer_format'],
  ],
  OAuth2SecurityScheme: [
    ['description', 'string'],
    ['flows', 'OAuthFlows'],
    ['oauth2MetadataUrl', 'string', 'oauth2_metadata_url'],
  ],
  OpenIdConnectSecurityScheme: [
    ['description', 'string'],
    ['openIdConnectUrl', 'string', 'open_id_connect_url'],
  ],
  MutualTlsSecurityScheme: [['description', 'string']],
  OAuthFlows: {
    oneOf: [
      ['authorizationCode', 'AuthorizationCodeOAuthFlow', 'authorization_code'],
      ['clientCredentials', 'ClientCredentialsOAuthFlow', 'client_credentials'],
      ['implicit', 'ImplicitOAuthFlow'],
      ['password', 'PasswordOAuthFlow'],
      ['deviceCode', 'DeviceCodeOAuthFlow', 'device_code'],
    ],
  },
  AuthorizationCodeOAuthFlow: [
    ['authorizationUrl', 'string', 'authorization_url'],
    ['tokenUrl', 'string', 'token_url'],
    ...scopesFlow(),
    ['pkceRequired', 'bool', 'pkce_required'],
  ],
  ClientCredentialsOAuthFlow: scopesFlow(['tokenUrl', 'string', 'token_url']),
  ImplicitOAuthFlow: scopesFlow(['authorizationUrl', 'string', 'authorization_url']),
  PasswordOAuthFlow: scopesFlow(['tokenUrl', 'string', 'token_url']),
  DeviceCodeOAuthFlow: scopesFlow(['deviceAuthorizationUrl', 'string', 'device_authorization_url'], ['tokenUrl', 'string', 'token_url']),
};

/** Messages whose only field is a list tolerate null (the reader looks it up with `?.`). */
const NULL_TOLERANT: ReadonlySet<string> = new Set(['StringList']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isSet = (v: unknown): boolean => v !== null && v !== undefined;

/** The given value of a field: under its camelCase name, else its snake_case one, as `present` decides. */
function given(source: Record<string, unknown> | undefined, [name, , alias]: Field, present: (v: unknown) => boolean): unknown {
  const value = source?.[name];
  if (present(value) || alias === undefined) return value;
  return source?.[alias];
}

function readMessage(name: string, value: unknown): Record<string, unknown> {
  if (!isSet(value) && !NULL_TOLERANT.has(name)) throw new CardCanonicalError(`a ${name} is ${value === null ? 'null' : 'missing'}`);
  // A primitive reads as a message with every field unset, as a property lookup on it does.
  const source = isObject(value) ? value : undefined;
  const spec: readonly Field[] | OneOf = MESSAGES[name];
  const out: Record<string, unknown> = {};
  if ('oneOf' in spec) {
    const member = spec.oneOf.find((field) => isSet(given(source, field, isSet)));
    if (member) out[member[0]] = readMessage(member[1], given(source, member, isSet));
    return out;
  }
  for (const field of spec) {
    const read = readField(source, field);
    if (read !== undefined) out[field[0]] = read;
  }
  return out;
}

/** One field as the v1.0 reader keeps it; undefined when it is left out. */
function readField(source: Record<string, unknown> | undefined, field: Field): unknown {
  const kind = field[1];
  if (kind === 'strings' || kind.endsWith('[]')) {
    const list = given(source, field, Array.isArray);
    if (!Array.isArray(list)) return undefined;
    return kind === 'strings' ? list.map(String) : list.map((item) => readMessage(kind.slice(0, -2), item));
  }
  if (kind === 'struct') return isObject(source?.[field[0]]) ? source[field[0]] : undefined;
  if (kind === 'stringMap' || kind.endsWith('{}')) {
    const map = given(source, field, isObject);
    if (!isObject(map)) return undefined;
    const out: Record<string, unknown> = {};
    // Assigned, not defined, as the reader does (a `__proto__` key then reads as the reader reads it).
    for (const [key, v] of Object.entries(map)) out[key] = kind === 'stringMap' ? String(v) : readMessage(kind.slice(0, -2), v);
    return out;
  }
  const value = given(source, field, isSet);
  if (!isSet(value)) return undefined;
  if (kind === 'string') return String(value);
  if (kind === 'bool') return Boolean(value) || undefined;
  if (kind === 'optBool') return Boolean(value);
  return readMessage(kind, value);
}

/** Removes empty strings, nulls, and the lists and objects left empty, at every depth. */
function withoutEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const kept = value.map(withoutEmpty).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const read = withoutEmpty(v);
    if (read !== undefined) kept[key] = read;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The JCS text a signature of this card covers. Throws CardCanonicalError for a card no signature can cover. */
export function canonicalCardPayload(card: unknown): string {
  try {
    const message = readMessage('AgentCard', card);
    delete message.signatures;
    return canonicalize(withoutEmpty(message) ?? {}) ?? '{}';
  } catch (e) {
    if (e instanceof CardCanonicalError) throw e;
    // A lone surrogate (JCS refuses it), or a `params` object nested past the call stack.
    throw new CardCanonicalError(e instanceof RangeError ? 'the card is nested too deeply' : (e as Error).message);
  }
}
