/**
 * HTTPS for the listeners (the proxy with --tls-cert/--tls-key, the admin API with
 * --admin-tls-cert/--admin-tls-key): reading and checking the PEM pair once, so a missing,
 * unreadable, non-PEM or mismatched file is one line naming the flag, and loading it again for a
 * hot reload without dropping connections (Node's setSecureContext applies to new handshakes).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import { readRegularFile } from '../common/regular-file.js';

/** The certificate and key files of one listener, and the flags that named them. */
export interface TlsFiles {
  cert: string;
  key: string;
  /** e.g. `--tls-cert` / `--tls-key`, for messages. */
  certFlag: string;
  keyFlag: string;
}

/** The PEM pair as read and checked. */
export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/** A file that cannot serve TLS; the message is one line naming the flag and the file. */
export class TlsFileError extends Error {
  override name = 'TlsFileError';
}

/** A certificate chain or a key is a few KB; a CA bundle a few hundred. */
export const MAX_PEM_BYTES = 1024 * 1024;

function readPem(file: string, flag: string, marker: RegExp, what: string): Buffer {
  // A regular file only, bounded: a FIFO at the key path once froze the process on a --watch reload.
  const read = readRegularFile(file, { maxBytes: MAX_PEM_BYTES, what: 'a PEM file' });
  if (!read.ok) throw new TlsFileError(`${flag}: ${file}: ${read.message}`);
  if (!marker.test(read.bytes.toString('latin1'))) throw new TlsFileError(`${flag}: ${file} holds no PEM ${what}`);
  return read.bytes;
}

/**
 * Why the key is not the certificate's, or undefined. OpenSSL's own check (createSecureContext)
 * compares the two only when they are of one type: an EC key with an RSA certificate passed it,
 * and every handshake failed afterwards.
 */
function keyMismatch(cert: Buffer, key: Buffer): string | undefined {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)) ? undefined : 'key values mismatch';
  } catch (e) {
    return (e as Error).message;
  }
}

/** Reads both files and proves they form a usable pair; throws TlsFileError otherwise. */
export function readTlsFiles(files: TlsFiles): TlsPair {
  const cert = readPem(files.cert, files.certFlag, /-----BEGIN CERTIFICATE-----/, 'certificate ("-----BEGIN CERTIFICATE-----")');
  const key = readPem(files.key, files.keyFlag, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'private key ("-----BEGIN PRIVATE KEY-----")');
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    const reason = (e as Error).message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '').trim();
    if (/mismatch/i.test(reason)) throw new TlsFileError(`${files.keyFlag}: ${files.key} is not the key of the certificate in ${files.cert} (${reason})`);
    throw new TlsFileError(`${files.certFlag}/${files.keyFlag}: ${files.cert} and ${files.key} cannot serve TLS (${reason})`);
  }
  const mismatch = keyMismatch(cert, key);
  if (mismatch) throw new TlsFileError(`${files.keyFlag}: ${files.key} is not the key of the certificate in ${files.cert} (${mismatch})`);
  return { cert, key };
}

/** An HTTP server, or an HTTPS one when a pair is given; same options and handler either way. */
export function createListener(pair: TlsPair | undefined, options: http.ServerOptions, handler: http.RequestListener): http.Server {
  return pair ? https.createServer({ ...options, ...pair }, handler) : http.createServer(options, handler);
}

/** The URL scheme of a listener made by createListener. */
export function schemeOf(server: http.Server): 'http' | 'https' {
  return server instanceof https.Server ? 'https' : 'http';
}

/**
 * Reads the files again and swaps them in for new connections. A bad pair leaves the one in use
 * and throws TlsFileError, so a half-written certificate never takes the listener down.
 */
export function reloadTls(server: http.Server, files: TlsFiles): void {
  if (!(server instanceof https.Server)) return;
  server.setSecureContext(readTlsFiles(files));
}
