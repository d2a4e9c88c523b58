// The page's only ways out: same-origin fetches to the admin API and the same-origin /events
// WebSocket. The admin token lives in this module's memory and nowhere else: not in storage,
// not in a cookie, not in a URL.
import { byId } from './dom.js';

let token: string | undefined;
let asking: Promise<void> | undefined;

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

export type Body = { json: unknown } | { yaml: string };

/** One admin call. A 401 asks for the token (once for all calls waiting) and tries again. */
export async function api<T>(method: string, path: string, body?: Body): Promise<T> {
  for (;;) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body && 'yaml' in body) {
      headers['content-type'] = 'application/yaml';
      payload = body.yaml;
    } else if (body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body.json);
    }
    const sentWith = token;
    const res = await fetch(path, { method, headers, body: payload, mode: 'same-origin', credentials: 'omit', cache: 'no-store' });
    if (res.status === 401) {
      // Another call may already have been given a new token while this one was in flight.
      if (token === sentWith) await askForToken(sentWith !== undefined);
      continue;
    }
    const text = await res.text();
    const data: unknown = /^application\/json\b/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
    if (!res.ok) {
      const error = (data as { error?: { message?: string; problems?: string[] } } | null)?.error;
      throw new ApiCallError(res.status, error?.message ?? `${method} ${path} answered ${res.status}`, error?.problems ?? []);
    }
    return data as T;
  }
}

function askForToken(refused: boolean): Promise<void> {
  asking ??= new Promise<void>((resolve) => {
    const dialog = byId<HTMLDialogElement>('token-dialog');
    const form = byId<HTMLFormElement>('token-form');
    const input = byId<HTMLInputElement>('token-input');
    byId('token-error').textContent = refused ? 'That token was refused. Try again.' : '';
    input.value = '';
    form.onsubmit = (event) => {
      event.preventDefault();
      if (!input.value) return;
      token = input.value;
      input.value = '';
      dialog.close();
      asking = undefined;
      resolve();
    };
    dialog.showModal();
    input.focus();
  });
  return asking;
}

/** Browsers cannot set headers on a WebSocket, so the token travels as a second subprotocol. */
export function openEventsSocket(): WebSocket {
  const url = new URL('/events', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const protocols = ['aap-chaos.events'];
  if (token) protocols.push(`aap-chaos.token.${base64url(token)}`);
  return new WebSocket(url, protocols);
}

function base64url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
