/**
 * A listener that cannot open says which one it is and the flag (or library option) that moves
 * it, instead of Node's bare "listen EADDRINUSE".
 */

export interface ListenerName {
  /** "proxy" or "admin API". */
  what: string;
  flag: string;
  option: string;
}

export const PROXY_LISTENER: ListenerName = { what: 'proxy', flag: '--port', option: 'port' };
export const ADMIN_LISTENER: ListenerName = { what: 'admin API', flag: '--admin-port', option: 'adminPort' };

/** Runs `listen`, rephrasing a failure to open the port. */
export async function listenNamed<T>(listener: ListenerName, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const where = `${host}:${port}`;
    const move = `choose another with ${listener.flag} (library: ${listener.option}; 0 picks a free port)`;
    if (code === 'EADDRINUSE') throw new Error(`the ${listener.what} cannot listen on ${where}: the port is already in use; ${move}`);
    if (code === 'EACCES') throw new Error(`the ${listener.what} cannot listen on ${where}: permission denied; ${move}`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new Error(`the ${listener.what} cannot listen on ${where}: no such local address (${code})`);
    throw err;
  }
}
