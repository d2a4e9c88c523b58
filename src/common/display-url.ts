/**
 * A URL as messages, logs, /status and reports show it: whatever an operator put in it as a
 * credential is hidden. A dealer, collector or Redis URL may carry one in its user part
 * (`http://user:pw@…`, `https://TOKEN@…`) or its query (`?token=`, `?api_key=`, `?sig=`; the
 * Redis client takes any client option, `?password=` included, from the query). Kept apart from
 * every client so the option table can use it without loading one.
 */

/** Query parameters whose value is a secret. */
const SECRET_PARAMS = /pass|auth|token|secret|key|sig|credential|session/i;
const SECRET_PARAMS_TEXT = 'pass|auth|token|secret|key|sig|credential|session';

/**
 * A URL without its secrets: the password of the user part (or the user part itself, when it is
 * all there is: a token given as the user name) and every secret query parameter become `***`.
 * Text that does not parse as a URL is cleaned the same way by pattern, so even a refused value
 * never quotes its credentials.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    // Nothing to hide: the text as given, not as the URL parser would write it back.
    if (!u.username && !u.password && ![...u.searchParams.keys()].some((name) => SECRET_PARAMS.test(name))) return url;
    if (u.password) u.password = '***';
    else if (u.username) u.username = '***';
    for (const name of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(name)) u.searchParams.set(name, '***');
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return url
      .replace(/\/\/([^/@:]*):[^/]*@/, '//$1:***@')
      .replace(/\/\/[^/@:]+@/, '//***@')
      .replace(new RegExp(`([?&][^=&#]*(?:${SECRET_PARAMS_TEXT})[^=&#]*=)[^&#]*`, 'gi'), '$1***');
  }
}
