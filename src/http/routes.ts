/**
 * The shape of an admin route and the error a route answers with. Routes are written in more than
 * one layer (the staging controls' routes below the admin server that serves them), so the shape
 * lives here, with the surface each route drives left to the layer that defines it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error the API answers with; anything else is a bug and answers 500 without details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * One percent-encoded segment of a route's path (a rule id, a session id), decoded; bad encoding
 * (`%zz`, a cut `%4`, bytes that are not UTF-8) is the caller's mistake: a 400 naming the path.
 */
export function decodePathSegment(segment: string, route: (raw: string) => string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, `${route(segment.slice(0, 40))}: bad percent-encoding (write a % as %25; each % is followed by two hex digits of UTF-8)`);
  }
}

export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
}

/** A route over the surface `S` it drives. */
export interface Route<S> {
  method: string;
  path: RegExp;
  handle(surface: S, call: Call): Promise<void> | void;
}
