/**
 * The code tables of AAP and A2A: every error code the product can emit, with the
 * JSON-RPC code it travels on under each envelope profile and its retryable default.
 * This is the only place these numbers live.
 */

/** Envelope profiles: `1.3` is the frozen release, `2.0` the draft error contract. */
export type Profile = '1.3' | '2.0';
export const PROFILES: readonly Profile[] = ['1.3', '2.0'];

export const AAP_EXTENSION_URI_1_3 = 'https://autoagentprotocol.org/extensions/aap/v1.3';
/** The 2.0 draft's placeholder URI (the seed says it must never be deployed; fine for a harness). */
export const AAP_EXTENSION_URI_2_0_DRAFT = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
export const AAP_ERROR_TYPE_URL = 'https://autoagentprotocol.org/extensions/aap/error';
export const AAP_ERROR_DOMAIN = 'autoagentprotocol.org';
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
/** Neither A2A nor AAP uses it on JSON-RPC; buyers may still meet it (`retryDelay` is a Duration such as "30s"). */
export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';
export const A2A_VERSION = '1.0';
export const EXTENSIONS_HEADER = 'A2A-Extensions';
export const VERSION_HEADER = 'A2A-Version';

/** The five AAP skills. */
export const AAP_SKILLS = ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit'] as const;
export type AapSkill = (typeof AAP_SKILLS)[number];

/** Media-type (and request-schema file) slug of each skill; `inventory.vehicle` travels as `vehicle-detail`. */
export const AAP_SKILL_SLUGS: Record<AapSkill, string> = {
  'dealer.information': 'dealer-information',
  'inventory.facets': 'inventory-facets',
  'inventory.search': 'inventory-search',
  'inventory.vehicle': 'vehicle-detail',
  'lead.submit': 'lead-submit',
};

export function isAapSkill(value: unknown): value is AapSkill {
  return typeof value === 'string' && (AAP_SKILLS as readonly string[]).includes(value);
}

/** The condition vocabularies lead.submit enforces per context (the base Vehicle schema accepts their union). */
export const SALE_CONDITIONS: readonly string[] = ['new', 'used', 'cpo'];
export const TRADE_IN_CONDITIONS: readonly string[] = ['excellent', 'good', 'fair', 'poor'];

/** RATE_LIMITED's retry hint when a rule names none (the seed says a dealer SHOULD give one). */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/** A2A JSON-RPC method names: v1.0 PascalCase, then the v0.3 names legacy clients send. */
export const A2A_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;

export const AAP_CODES = [
  'UNSUPPORTED_SKILL',
  'SCHEMA_VALIDATION_FAILED',
  'MISSING_REQUIRED_FIELD',
  'INVALID_CONDITION',
  'VEHICLE_NOT_FOUND',
  'VEHICLE_UNAVAILABLE',
  'CONTACT_CONSENT_REQUIRED',
  'INVALID_CONSENT',
  'APPOINTMENT_TIME_UNAVAILABLE',
  'IDEMPOTENCY_CONFLICT',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
] as const;
export type AapCode = (typeof AAP_CODES)[number];

interface AapCodeInfo {
  /** JSON-RPC code per profile. */
  rpc: Record<Profile, number>;
  retryable: boolean;
  /** Default human message when a rule gives none. */
  message: string;
}

export const AAP_CODE_TABLE: Record<AapCode, AapCodeInfo> = {
  UNSUPPORTED_SKILL: { rpc: { '1.3': -32601, '2.0': -32004 }, retryable: false, message: 'The requested skill is not supported by this dealer agent.' },
  SCHEMA_VALIDATION_FAILED: { rpc: { '1.3': -32602, '2.0': -32602 }, retryable: false, message: 'The request failed schema validation.' },
  MISSING_REQUIRED_FIELD: { rpc: { '1.3': -32602, '2.0': -32602 }, retryable: false, message: 'A required field is missing.' },
  INVALID_CONDITION: { rpc: { '1.3': -32602, '2.0': -32602 }, retryable: false, message: 'A vehicle condition uses the wrong vocabulary for its context.' },
  VEHICLE_NOT_FOUND: { rpc: { '1.3': -32000, '2.0': -32000 }, retryable: false, message: 'No listing matches the supplied vehicle identifiers.' },
  VEHICLE_UNAVAILABLE: { rpc: { '1.3': -32000, '2.0': -32000 }, retryable: false, message: 'The vehicle is no longer available.' },
  CONTACT_CONSENT_REQUIRED: {
    rpc: { '1.3': -32000, '2.0': -32000 },
    retryable: false,
    message: 'Customer contact details need a consent grant covering the follow-up channel.',
  },
  INVALID_CONSENT: { rpc: { '1.3': -32000, '2.0': -32000 }, retryable: false, message: 'The consent grant is malformed, expired or out of scope.' },
  APPOINTMENT_TIME_UNAVAILABLE: {
    rpc: { '1.3': -32000, '2.0': -32000 },
    retryable: false,
    message: 'The requested appointment time is unavailable and no alternative exists.',
  },
  IDEMPOTENCY_CONFLICT: { rpc: { '1.3': -32000, '2.0': -32000 }, retryable: false, message: 'The idempotency key was already used with a different payload.' },
  RATE_LIMITED: { rpc: { '1.3': -32002, '2.0': -32000 }, retryable: true, message: 'Per-key rate limit exceeded.' },
  INTERNAL_ERROR: { rpc: { '1.3': -32603, '2.0': -32603 }, retryable: true, message: 'Internal dealer error.' },
};

/** Codes whose 2.0 envelope carries a google.rpc.BadRequest mirroring details.errors[]. */
export const VALIDATION_CODES: ReadonlySet<AapCode> = new Set(['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION']);

export const A2A_ERROR_NAMES = [
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'INVALID_AGENT_RESPONSE',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'VERSION_NOT_SUPPORTED',
  'PARSE_ERROR',
  'INVALID_REQUEST',
  'METHOD_NOT_FOUND',
  'INVALID_PARAMS',
  'INTERNAL_ERROR',
] as const;
export type A2aErrorName = (typeof A2A_ERROR_NAMES)[number];

interface A2aErrorInfo {
  code: number;
  message: string;
  /** JSON-RPC standard errors carry no ErrorInfo reason of A2A's own. */
  standard: boolean;
}

export const A2A_ERROR_TABLE: Record<A2aErrorName, A2aErrorInfo> = {
  TASK_NOT_FOUND: { code: -32001, message: 'Task not found.', standard: false },
  TASK_NOT_CANCELABLE: { code: -32002, message: 'Task cannot be canceled.', standard: false },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { code: -32003, message: 'Push notifications are not supported.', standard: false },
  UNSUPPORTED_OPERATION: { code: -32004, message: 'This operation is not supported.', standard: false },
  CONTENT_TYPE_NOT_SUPPORTED: { code: -32005, message: 'Content type not supported.', standard: false },
  INVALID_AGENT_RESPONSE: { code: -32006, message: 'The agent returned an invalid response.', standard: false },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { code: -32007, message: 'No extended agent card is configured.', standard: false },
  EXTENSION_SUPPORT_REQUIRED: { code: -32008, message: 'A required extension was not activated.', standard: false },
  VERSION_NOT_SUPPORTED: { code: -32009, message: 'The requested A2A protocol version is not supported.', standard: false },
  PARSE_ERROR: { code: -32700, message: 'Parse error: the body is not valid JSON.', standard: true },
  INVALID_REQUEST: { code: -32600, message: 'Invalid request: not a JSON-RPC 2.0 request object.', standard: true },
  METHOD_NOT_FOUND: { code: -32601, message: 'Method not found.', standard: true },
  INVALID_PARAMS: { code: -32602, message: 'Invalid params.', standard: true },
  INTERNAL_ERROR: { code: -32603, message: 'Internal error.', standard: true },
};

export function isAapCode(value: unknown): value is AapCode {
  return typeof value === 'string' && (AAP_CODES as readonly string[]).includes(value);
}

/**
 * Which envelope profile an AAP extension URI implies: v1.3 and everything before it
 * (including the a2a-automotive-retail URIs) is 1.3; the draft URI and anything newer is 2.0.
 */
export function profileForExtensionUri(uri: string): Profile {
  const m = /\/extensions\/(aap|a2a-automotive-retail)\/v(\d+)\.(\d+)/.exec(uri);
  if (m) {
    if (m[1] === 'a2a-automotive-retail') return '1.3';
    const major = Number(m[2]);
    const minor = Number(m[3]);
    return major < 2 && (major < 1 || minor <= 3) ? '1.3' : '2.0';
  }
  return '2.0';
}

export function extensionUriForProfile(profile: Profile): string {
  return profile === '1.3' ? AAP_EXTENSION_URI_1_3 : AAP_EXTENSION_URI_2_0_DRAFT;
}

/** True when a URI is one of AAP's extension URIs (any version, including the draft). */
export function isAapExtensionUri(uri: string): boolean {
  return /\/extensions\/(aap|a2a-automotive-retail)\//.test(uri);
}
