// Without an endpoint no OpenTelemetry module is even loaded: a real process whose module
// resolution refuses every @opentelemetry/* package starts the proxy and serves a request; the
// same process given an endpoint fails on the first such import (the refusal is real).
import t from 'tap';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const RUNTIME = pathToFileURL(fileURLToPath(new URL('../../dist/runtime.js', import.meta.url))).href;

function run(dir: string, endpoint: string | undefined): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, path.join(dir, 'serve.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, ...(endpoint ? { ENDPOINT: endpoint } : {}) },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

t.test('no @opentelemetry module is imported without an endpoint; one is with it', async (t) => {
  const dir = t.testdir({});
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
       if (specifier.startsWith('@opentelemetry/')) throw new Error('refused import of ' + specifier);
       return next(specifier, context);
     }\n`,
  );
  writeFileSync(
    path.join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`,
  );
  writeFileSync(
    path.join(dir, 'serve.mjs'),
    `import { startRuntime } from ${JSON.stringify(RUNTIME)};
     const rt = await startRuntime({ port: 0, adminPort: 0, otlpEndpoint: process.env.ENDPOINT, env: {} });
     const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { type: 'dealer.information.request' } }] } } });
     const reply = await fetch(rt.url + '/a2a', { method: 'POST', body, headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
     console.log('served', reply.status);
     await rt.close();\n`,
  );

  const without = await run(dir, undefined);
  t.equal(without.code, 0, without.err);
  t.match(without.out, /^served 200\n$/, 'the proxy started and answered');

  const traced = await run(dir, 'http://127.0.0.1:9');
  t.not(traced.code, 0, 'with an endpoint the SDK is imported, and the refusal shows');
  t.match(traced.err, /refused import of @opentelemetry\//);
});
