/**
 * The admin API's session endpoints: `GET /sessions`, `POST /sessions/ID/reset`, and the
 * `?session=ID` query that `GET /journal` and `GET /report` accept.
 */
import type { ServerResponse } from 'node:http';
import { isSessionId } from '../engine/sessions.js';
import type { Route } from './surface.js';
import { ApiError } from '../http/routes.js';
import { actorOf } from '../staging/routes.js';

const PROBLEM = 'a session id is 1 to 128 printable characters without spaces';

/** `{ session }` from `?session=ID`, or `{}`; a bad id is a 400 naming the parameter. */
export function sessionQuery(url: URL): { session?: string } {
  const session = url.searchParams.get('session');
  if (session === null) return {};
  if (!isSessionId(session)) throw new ApiError(400, `session: "${session.slice(0, 40)}" is not a session id; ${PROBLEM}`);
  return { session };
}

export function sessionRoutes(sendJson: (res: ServerResponse, status: number, body: unknown) => void): Route[] {
  return [
    { method: 'GET', path: /^\/sessions$/, handle: (s, { res }) => sendJson(res, 200, { sessions: s.sessions() }) },
    {
      method: 'POST',
      path: /^\/sessions\/([^/]+)\/reset$/,
      handle: async (s, { req, res, params }) => {
        let id: string;
        try {
          id = decodeURIComponent(params[0]!);
        } catch {
          id = '';
        }
        if (!isSessionId(id)) throw new ApiError(400, `/sessions/${params[0]!.slice(0, 40)}/reset: not a session id; ${PROBLEM}`);
        await s.resetSession(id, actorOf(req));
        sendJson(res, 200, { reset: true, session: id });
      },
    },
  ];
}
