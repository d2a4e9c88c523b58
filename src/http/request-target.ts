/**
 * The request target the dealer gets: always a path under --target's base path (origin-form,
 * RFC 9112 §3.2.1), never the target as the buyer wrote it.
 *
 * - An absolute-form target (`GET https://other-vhost/admin`) is reduced to its path and query.
 *   RFC 9112 §3.2.2 has a server accept absolute-form and ignore the Host header for it; its
 *   authority can only name this proxy, which has one dealer, so it is dropped rather than
 *   refused (as nginx does in front of an upstream). Passed on as written, it would let a buyer
 *   pick the virtual host behind a dealer's gateway.
 * - Dot segments (`.`, `..`, also written `%2e` or separated by `\`, which many servers read as
 *   `/`) are resolved here, so the dealer cannot resolve them out of the base path; a `..` that
 *   climbs above the buyer's root, which would leave the base path, is refused.
 * - Leading empty segments are dropped: `//host/x` is a scheme-relative URL to most URL parsers.
 * - An encoded slash or backslash (`%2F`, `%5C`) beside a dot segment (`..%2F..%2Fx`) is refused.
 *   To RFC 3986 it is data inside one segment (§2.2: an encoded reserved character is not its
 *   delimiter), so no dot-segment removal (§5.2.4) applies; but a dealer that decodes it first
 *   reads `../../x` and climbs out of the base path. Decoding it here would change what a dealer
 *   that follows the RFC receives, so the ambiguous form is refused; `%2F` among other data
 *   (`/tasks/a%2Fb`) goes on as written.
 * - Anything else (`*`, a scheme other than http or https) is refused.
 * Ordinary paths take none of this: one regular expression test, and they go on byte for byte.
 */

export type TargetPath = { ok: true; path: string } | { ok: false; message: string };

/** What may need resolving: a segment starting with a dot, `%2e`, a backslash, `//` at the start, an encoded slash. */
const MAY_NEED_RESOLVING = /\/\.|%2e|\\|^\/\/|%2f|%5c/i;
const ENCODED_SLASH = /%2f|%5c/i;
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/[^/?#\\]*/;
const DOT = /^(?:\.|%2e)$/i;
const DOT_DOT = /^(?:\.|%2e){2}$/i;

/** The path the dealer gets for a request target, or why it gets none. */
export function originFormPath(target: string): TargetPath {
  if (target.startsWith('/') && !MAY_NEED_RESOLVING.test(target)) return { ok: true, path: target };
  let rest = target;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute) {
    if (!/^https?$/i.test(absolute[1]!)) return refused(`an absolute-form request target must be http: or https:, not ${absolute[1]!.slice(0, 20)}:`);
    rest = target.slice(absolute[0].length);
    if (!rest.startsWith('/')) rest = `/${rest}`;
  } else if (!target.startsWith('/')) {
    return refused('the request target must be a path starting with "/" (or an http: or https: URL)');
  }
  const end = rest.search(/[?#]/);
  const path = end < 0 ? rest : rest.slice(0, end);
  const query = end < 0 ? '' : rest.slice(end);
  const kept: string[] = [];
  const segments = path.split(/[/\\]/).slice(1);
  for (const [i, segment] of segments.entries()) {
    // A matrix parameter (`..;x`) does not make a dot segment something else to every server.
    const bare = segment.split(';')[0]!;
    const last = i === segments.length - 1;
    if (ENCODED_SLASH.test(segment) && segment.split(/%2f|%5c|;/i).some((piece) => DOT.test(piece) || DOT_DOT.test(piece)))
      return refused('the request target has an encoded "/" or "\\" (%2F, %5C) beside a dot segment, which a dealer that decodes it first reads as a climb');
    if (DOT.test(bare)) {
      if (last) kept.push('');
    } else if (DOT_DOT.test(bare)) {
      if (kept.length === 0) return refused('the request target climbs above the root with "..", out of the dealer\'s base path');
      kept.pop();
      if (last) kept.push('');
    } else if (segment !== '' || kept.length > 0 || last) {
      kept.push(segment);
    }
  }
  return { ok: true, path: `/${kept.join('/')}${query}` };
}

function refused(message: string): TargetPath {
  return { ok: false, message };
}
