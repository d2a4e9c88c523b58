/**
 * A Redis URL as messages, logs and /status show it. The Redis client takes a password from the
 * URL's user part and any client option from its query (`?password=`), so both are hidden. Kept
 * apart from the store so the option table can use it without loading the Redis client.
 */

/** Query parameters the Redis client reads as a secret (it takes any client option from the query). */
const SECRET_PARAMS = /password$|^pass$|^auth$|token|secret/i;

/**
 * A URL without its secrets, for messages, logs and /status: the password of the user part and
 * any `?password=` become `***`. Text that does not parse as a URL is cleaned the same way by
 * pattern, so even a refused value never quotes its password.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(name)) u.searchParams.set(name, '***');
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/]*@/, '//$1:***@').replace(/([?&][^=&#]*(?:password|pass|auth|token|secret)[^=&#]*=)[^&#]*/gi, '$1***');
  }
}
