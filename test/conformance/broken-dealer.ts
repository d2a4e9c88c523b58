/**
 * A deliberately broken dealer: the real 2.0 mock dealer behind a front that spoils its replies
 * in seven known ways, each one rule of the conformance module:
 *   RATE_LIMITED on -32002 (AAP-ERR-008), ErrorInfo metadata that are not strings (AAP-ERR-005),
 *   ErrorInfo not first (AAP-ERR-003), a bare -32008 (AAP-ERR-013, AAP-ERR-014), numeric ids
 *   answered as strings (AAP-RPC-002), vehicles without status (AAP-OK-004), and only the first
 *   validation problem listed (AAP-ERR-011).
 */
import { startMockDealer } from '../../src/mock/index.js';
import { AAP_ERROR_TYPE_URL, AAP_EXTENSION_URI_2_0_DRAFT, BAD_REQUEST_TYPE, ERROR_INFO_TYPE } from '../../src/protocol/codes.js';
import { buildAapError } from '../../src/protocol/envelopes.js';
import { startUpstream, type Upstream } from '../helpers/servers.js';

export const BROKEN_DEALER_RULES = ['AAP-ERR-003', 'AAP-ERR-005', 'AAP-ERR-008', 'AAP-ERR-011', 'AAP-ERR-013', 'AAP-ERR-014', 'AAP-OK-004', 'AAP-RPC-002'];

/** Calls of dealer.information (activated, A2A-Version 1.0) served before RATE_LIMITED. */
const ALLOWED_CALLS = 3;

function spoilError(error: any): void {
  if (error.code === -32008) {
    delete error.data;
    error.message = 'Extension support required';
    return;
  }
  if (!Array.isArray(error.data) || !error.data.some((e: any) => e['@type'] === AAP_ERROR_TYPE_URL)) return;
  const info = error.data.find((e: any) => e['@type'] === ERROR_INFO_TYPE);
  info.metadata.retryable = info.metadata.retryable === 'true';
  error.data = [...error.data.filter((e: any) => e !== info), info];
  const payload = error.data.find((e: any) => e['@type'] === AAP_ERROR_TYPE_URL);
  if (Array.isArray(payload.details?.errors)) {
    payload.details.errors = payload.details.errors.slice(0, 1);
    const badRequest = error.data.find((e: any) => e['@type'] === BAD_REQUEST_TYPE);
    if (badRequest) badRequest.fieldViolations = badRequest.fieldViolations.slice(0, 1);
  }
}

function spoilResult(reply: any): void {
  if (typeof reply.id === 'number') reply.id = String(reply.id);
  const data = reply.result?.message?.parts?.[0]?.data;
  if (data?.type === 'inventory.search.response') for (const v of data.data.vehicles) delete v.status;
  if (data?.type === 'inventory.vehicle.response') delete data.data.status;
}

export async function startBrokenDealer(): Promise<{ url: string; close(): Promise<void> }> {
  const mock = await startMockDealer({ profile: '2.0', port: 0 });
  let served = 0;
  let front: Upstream | undefined;
  front = await startUpstream(async (req, res, body) => {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'a2a-version', 'a2a-extensions', 'accept'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
    const text = body.toString('utf8');
    const request = text ? JSON.parse(text) : undefined;
    const skill = request?.params?.message?.parts?.[0]?.data?.type;
    const activated = req.headers['a2a-version'] === '1.0' && req.headers['a2a-extensions'] === AAP_EXTENSION_URI_2_0_DRAFT;
    if (skill === 'dealer.information.request' && activated && ++served > ALLOWED_CALLS) {
      const limited: any = buildAapError('2.0', 'RATE_LIMITED', request.id, { retryAfterMs: 1000 });
      limited.error.code = -32002; // the 1.3 code, under 2.0
      spoilError(limited.error);
      res.writeHead(200, { 'content-type': 'application/json', 'a2a-extensions': AAP_EXTENSION_URI_2_0_DRAFT });
      return void res.end(JSON.stringify(limited));
    }
    const up = await fetch(mock.url + req.url, { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    let out = await up.text();
    if ((up.headers.get('content-type') ?? '').includes('json') && req.method === 'POST') {
      const reply = JSON.parse(out);
      if (reply.error) spoilError(reply.error);
      else spoilResult(reply);
      out = JSON.stringify(reply);
    }
    const replyHeaders: Record<string, string> = { 'content-type': up.headers.get('content-type') ?? 'application/json' };
    const echo = up.headers.get('a2a-extensions');
    if (echo) replyHeaders['a2a-extensions'] = echo;
    res.writeHead(up.status, replyHeaders);
    res.end(out);
  });
  return {
    url: front.url,
    close: async () => {
      await front!.close();
      await mock.close();
    },
  };
}
