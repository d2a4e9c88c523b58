/** The response headers that mark a reply as not the dealer's own. */

/** Response header on every reply the proxy wrote itself because the dealer could not be reached. */
export const SOURCE_HEADER = 'x-aap-chaos-source';
/** Response header naming the rule whose terminal effect answered instead of the dealer. */
export const RULE_HEADER = 'x-aap-chaos-rule';

/** The marker of an answer the proxy made itself, as headers to add to it. */
export const PROXY_SOURCE: Readonly<Record<string, string>> = { [SOURCE_HEADER]: 'proxy' };
