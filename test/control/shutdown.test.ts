// The journal survives SIGTERM under load: every request that got an answer has its line in the
// journal file. Runs the compiled runtime in a child process (`npm test` builds dist/ first).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const compiledRuntime = fileURLToPath(new URL('../../dist/runtime.js', import.meta.url));

// Starts the runtime as the CLI does (signal handlers included) and prints its URL once listening.
const CHILD = `
const { startRuntime, closeOnSignals } = await import(process.env.RUNTIME_MODULE);
const runtime = await startRuntime({
  port: 0, adminPort: 0, env: {},
  journalFile: process.env.JOURNAL_FILE,
  drainTimeoutMs: 10000,
  scenario: 'scenario: slow-everything\\nrules:\\n  - id: slow\\n    delay: { ms: 40 }\\n',
});
closeOnSignals(runtime, { log: (line) => process.stderr.write(line + '\\n') });
process.stdout.write(JSON.stringify({ url: runtime.url }) + '\\n');
`;

t.test(
  'SIGTERM under load: no journal line lost for an answered request, exit 0',
  { skip: !existsSync(compiledRuntime) && 'dist/ is not built (npm test builds it)' },
  async (t) => {
    const dir = tempDir(t, 'aap-chaos-sigterm-');
    const journalFile = path.join(dir, 'journal.jsonl');

    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: { ...process.env, RUNTIME_MODULE: pathToFileURL(compiledRuntime).href, JOURNAL_FILE: journalFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { url } = JSON.parse(firstLine) as { url: string };

    const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
    t.teardown(() => agent.destroy());
    const answered: string[] = [];
    let failed = 0;
    let next = 0;
    let stopping = false;

    /** One buyer request; counted as answered only when the whole reply arrived. */
    const send = (): Promise<void> =>
      new Promise((resolve) => {
        const id = `req-${next++}`;
        const req = http.request(`${url}/a2a`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => {
            answered.push(id);
            resolve();
          });
          res.on('error', () => (failed++, resolve()));
          res.on('aborted', () => (failed++, resolve()));
        });
        req.on('error', () => (failed++, resolve()));
        req.end(skillRequest('dealer.information', {}, id));
      });

    /** Keeps 20 requests in flight until told to stop. */
    const worker = async () => {
      while (!stopping) await send();
    };
    const workers = Array.from({ length: 20 }, worker);
    while (answered.length < 200) await new Promise((r) => setTimeout(r, 10));

    stopping = true; // the requests in flight now are the ones the drain must finish
    const answeredBeforeSignal = answered.length;
    child.kill('SIGTERM');
    await Promise.all(workers);
    const [code] = await exited;
    t.equal(code, 0, `exit 0 after SIGTERM (stderr: ${stderr.trim()})`);
    t.match(stderr, /SIGTERM: finishing requests in flight/);
    t.ok(answered.length > answeredBeforeSignal, `requests in flight at SIGTERM were finished (${answered.length - answeredBeforeSignal})`);

    const lines = (await readFile(journalFile, 'utf8')).split('\n').filter(Boolean);
    const journaled = new Set(lines.map((l) => (JSON.parse(l) as { rpc_id: string }).rpc_id));
    const missing = answered.filter((id) => !journaled.has(id));
    t.same(missing, [], `all ${answered.length} answered requests are in the journal (${failed} unanswered)`);
  },
);
