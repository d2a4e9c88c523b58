/**
 * Agent-card knowledge: where the card lives, how its interface URLs are rewritten so SDK
 * clients keep calling through the proxy, and which AAP extension (and so which envelope
 * profile) a dealer declares.
 */
import { createHash } from 'node:crypto';
import { isAapExtensionUri, profileForExtensionUri, type Profile } from './codes.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** True for the card path (v1.0) and the v0.3 name some older dealers still serve. */
export function isAgentCardPath(path: string): boolean {
  return path === AGENT_CARD_PATH || path === '/.well-known/agent.json';
}

/**
 * Points one URL at the proxy: same path and query, the proxy's scheme and host.
 * `stripPrefix` removes the target's own base path, because the proxy adds it back when forwarding.
 */
function pointAtProxy(url: unknown, proxyOrigin: string, stripPrefix: string): unknown {
  if (typeof url !== 'string') return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let path = parsed.pathname;
  if (stripPrefix && (path === stripPrefix || path.startsWith(stripPrefix + '/'))) path = path.slice(stripPrefix.length) || '/';
  return proxyOrigin + path + parsed.search + parsed.hash;
}

/**
 * Rewrites every interface URL in a card (v1.0 `supportedInterfaces[].url`; v0.3 `url` and
 * `additionalInterfaces[].url`) and nothing else. Returns a new object.
 */
export function rewriteAgentCard(card: Record<string, unknown>, proxyOrigin: string, stripPrefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = { ...card };
  const rewriteList = (key: string) => {
    const list = out[key];
    if (!Array.isArray(list)) return;
    out[key] = list.map((entry) =>
      entry && typeof entry === 'object' && 'url' in entry
        ? { ...(entry as Record<string, unknown>), url: pointAtProxy((entry as { url: unknown }).url, proxyOrigin, stripPrefix) }
        : entry,
    );
  };
  rewriteList('supportedInterfaces');
  rewriteList('additionalInterfaces');
  if ('url' in out) out.url = pointAtProxy(out.url, proxyOrigin, stripPrefix);
  return out;
}

export interface DeclaredExtension {
  uri: string;
  required: boolean;
  profile: Profile;
}

/** The AAP extension a card declares (the `required: true` entry first), if any. */
export function findAapExtension(card: unknown): DeclaredExtension | undefined {
  const list = (card as { capabilities?: { extensions?: unknown } } | null)?.capabilities?.extensions;
  if (!Array.isArray(list)) return undefined;
  const aap = list.filter(
    (e): e is { uri: string; required?: unknown } =>
      !!e && typeof e === 'object' && typeof (e as { uri?: unknown }).uri === 'string' && isAapExtensionUri((e as { uri: string }).uri),
  );
  const chosen = aap.find((e) => e.required === true) ?? aap[0];
  if (!chosen) return undefined;
  return { uri: chosen.uri, required: chosen.required === true, profile: profileForExtensionUri(chosen.uri) };
}

/**
 * Request headers that would let the dealer answer 304 about a card the buyer may hold in another
 * form: the proxy asks the dealer unconditionally and answers conditional requests itself, from
 * the bytes it serves.
 */
export const CONDITIONAL_REQUEST_HEADERS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'] as const;

/** A strong validator of exactly these card bytes (never the dealer's, whose bytes differ). */
export function cardEtag(bytes: Buffer): string {
  return `"aap-chaos-${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: `*` or a comma-separated list of (weakly compared) entity tags. */
export function etagMatches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/**
 * The card as served through the proxy: the dealer's ETag and Last-Modified (validators of bytes
 * the buyer never gets) give way to an ETag of the served bytes, and an If-None-Match naming it
 * is answered 304 without a body.
 */
export function servedCard(
  headers: Record<string, string | string[] | undefined>,
  bytes: Buffer,
  status: number,
  ifNoneMatch: string | string[] | undefined,
): { status: number; bytes: Buffer } {
  delete headers['last-modified'];
  delete headers.etag;
  if (status !== 200) return { status, bytes };
  const etag = cardEtag(bytes);
  headers.etag = etag;
  if (!etagMatches(ifNoneMatch, etag)) return { status, bytes };
  delete headers['content-type'];
  return { status: 304, bytes: Buffer.alloc(0) };
}

/**
 * Cache headers of a card rewritten to the `Host` the buyer used: its body now depends on that
 * request header. `Vary: Host` says so to every cache, and `private` (instead of the dealer's
 * `public` or `s-maxage`) keeps shared caches (a CDN, a company proxy) from storing one buyer's
 * view and serving it under another name, e.g. to a page that reached the proxy through a
 * rebound DNS name. The buyer's own cache keeps the dealer's max-age and the ETag.
 */
export function cacheAsHostDependent(headers: Record<string, string | string[] | undefined>): void {
  const vary = listOf(headers.vary);
  if (!vary.some((v) => v === '*' || v.toLowerCase() === 'host')) vary.push('Host');
  headers.vary = vary.join(', ');
  const directives = listOf(headers['cache-control']).filter((d) => !/^(public|private|s-maxage\s*=.*|proxy-revalidate)$/i.test(d));
  headers['cache-control'] = ['private', ...directives].join(', ');
}

/** The items of a comma-separated header, as one list whether it came once or repeated. */
function listOf(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
