// A throwaway certificate authority made with Debian's openssl command, and server certificates it
// signs for 127.0.0.1 and localhost: what a staging team's own CA would give the proxy.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { Agent, fetch as undiciFetch } from 'undici';
import { tempDir } from './temp-dir.js';

export interface TestCa {
  dir: string;
  /** PEM file of the CA certificate (what a client trusts). */
  caFile: string;
  ca: string;
  /** Signs a new server certificate; returns its files. */
  issue(name: string): { cert: string; key: string };
  /** A fetch that trusts this CA (and nothing else extra), for the SDK client's fetchImpl. */
  fetch: typeof fetch;
  /** Closes the fetch's connections (its directory is removed when the test ends). */
  close(): Promise<void>;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** A new CA in a directory of its own, removed when `t` ends. */
export function makeTestCa(t: Test): TestCa {
  const dir = tempDir(t, 'aap-chaos-ca-');
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=aap-chaos test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  writeFileSync(
    path.join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  const caFile = path.join(dir, 'ca.pem');
  const ca = readFileSync(caFile, 'utf8');
  const agent = new Agent({ connect: { ca } });
  return {
    dir,
    caFile,
    ca,
    issue(name) {
      openssl(['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=127.0.0.1'], dir);
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-CAcreateserial',
          '-out',
          `${name}.pem`,
          '-days',
          '1',
          '-extfile',
          'server.ext',
        ],
        dir,
      );
      return { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
    },
    fetch: ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent })) as unknown as typeof fetch,
    async close() {
      await agent.close();
    },
  };
}
