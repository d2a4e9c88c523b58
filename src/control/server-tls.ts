/**
 * The run's two TLS listeners as options give them: --tls-cert/--tls-key for the proxy and
 * --admin-tls-cert/--admin-tls-key for the admin API. A flag without its partner is a usage
 * error; the files are read and checked once at start, and again on each reload.
 */
import type http from 'node:http';
import { readTlsFiles, reloadTls, TlsFileError, type TlsFiles, type TlsPair } from '../proxy/tls.js';

export interface ServerTlsFiles {
  proxy?: { files: TlsFiles; pair: TlsPair };
  admin?: { files: TlsFiles; pair: TlsPair };
}

function pairOf(cert: string | undefined, key: string | undefined, prefix: '' | 'admin-'): { files: TlsFiles; pair: TlsPair } | undefined {
  const certFlag = `--${prefix}tls-cert`;
  const keyFlag = `--${prefix}tls-key`;
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw new TlsFileError(
      `${cert === undefined ? keyFlag : certFlag} needs ${cert === undefined ? certFlag : keyFlag} too: HTTPS takes a certificate and its key`,
    );
  const files = { cert, key, certFlag, keyFlag };
  return { files, pair: readTlsFiles(files) };
}

/** Reads both pairs the options name; throws TlsFileError (one line) for a missing or bad one. */
export function readServerTls(opts: { tlsCert?: string; tlsKey?: string; adminTlsCert?: string; adminTlsKey?: string }): ServerTlsFiles {
  const proxy = pairOf(opts.tlsCert, opts.tlsKey, '');
  const admin = pairOf(opts.adminTlsCert, opts.adminTlsKey, 'admin-');
  return { ...(proxy ? { proxy } : {}), ...(admin ? { admin } : {}) };
}

/** Loads every pair again into its listener; one line per listener reloaded. A bad file throws and the old pair stays. */
export function reloadServerTls(tls: ServerTlsFiles, proxy: http.Server, admin: http.Server): string[] {
  const lines: string[] = [];
  if (tls.proxy) {
    reloadTls(proxy, tls.proxy.files);
    lines.push(`proxy certificate reloaded from ${tls.proxy.files.cert}`);
  }
  if (tls.admin) {
    reloadTls(admin, tls.admin.files);
    lines.push(`admin certificate reloaded from ${tls.admin.files.cert}`);
  }
  return lines;
}
