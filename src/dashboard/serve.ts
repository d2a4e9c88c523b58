/**
 * Serves the dashboard page: `GET /` and its files under `/dashboard/`. They are static (no data,
 * no secrets), so they load without the admin token; the page then asks for the token and sends
 * it with every API call it makes. The browser script is compiled by `npm run build` into
 * dist/dashboard/page/, which this module finds the same way from src/ (tests) and dist/.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_PAGE_DIR = fileURLToPath(new URL('../../dist/dashboard/page/', import.meta.url));

const ASSET_PATH = /^\/dashboard\/([a-z][a-z0-9-]*\.(?:js|css))$/;
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Only the page's own files, and only same-origin connections (fetch and the /events WebSocket):
 * even a script injected through a journal value could not send data elsewhere.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The file a GET path names, or undefined when the path is not the dashboard's. */
export function dashboardFileFor(pathname: string): string | undefined {
  if (pathname === '/' || pathname === '/index.html') return 'index.html';
  return ASSET_PATH.exec(pathname)?.[1];
}

/** Answers with the file; 404 for a file that does not exist, 503 when the page was never built. */
export async function serveDashboardFile(file: string, res: ServerResponse): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(DASHBOARD_PAGE_DIR, file));
  } catch {
    const built = await readFile(path.join(DASHBOARD_PAGE_DIR, 'index.html')).then(
      () => true,
      () => false,
    );
    const [status, message] = built ? [404, `no dashboard file ${file}`] : [503, 'the dashboard is not built: run "npm run build"'];
    const body = Buffer.from(JSON.stringify({ error: { message } }));
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
    return;
  }
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES[path.extname(file)]!, 'content-length': bytes.length });
  res.end(bytes);
}
