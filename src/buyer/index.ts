/**
 * `aap-chaos/buyer`: the toolkit for buyers, usable without the proxy. It depends on nothing but
 * the protocol tables (src/protocol/codes.ts, which imports nothing) and the platform's fetch:
 * no Node-only module, no runtime dependency.
 *
 *   const fetchImpl = aapFetch();
 *   const client = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
 *     transports: [new JsonRpcTransportFactory({ fetchImpl })],
 *     cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
 *   })).createFromUrl(url);
 *   try { … } catch (e) { const next = policy.decide(readAapError(e), { attempt, skill, data }); … }
 */
export { readAapError } from './read-error.js';
export { aapFetch, type FetchLike } from './aap-fetch.js';
export { retryPolicy, type RetryContext, type RetryDecision, type RetryPolicy, type RetryPolicyOptions } from './retry-policy.js';
export type { AapErrorKind, AapErrorReading, FieldError, NotFound } from './reading.js';
/** The AAP extension URIs a buyer may list in `supportedExtensions`: the v1.3 release and the 2.0 draft's placeholder. */
export { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT } from '../protocol/codes.js';
