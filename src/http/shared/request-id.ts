// Request ids: every response carries X-Request-Id and X-Amz-Request-Id with the same value. A well-formed
// (UUID-shaped) incoming X-Request-Id is reused; anything else gets a new UUID v7.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUuidShaped, uuidv7 } from '../../lib/ids.js';

const REQUEST_ID = Symbol('store.requestId');

type WithId = IncomingMessage & { [REQUEST_ID]?: string };

/** Assigns the request's id and sets both response headers. Idempotent. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const tagged = req as WithId;
  const existing = tagged[REQUEST_ID];
  if (existing) return existing;
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && isUuidShaped(incoming) ? incoming.toLowerCase() : uuidv7();
  tagged[REQUEST_ID] = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('X-Amz-Request-Id', id);
  return id;
}

/** The id assigned by assignRequestId (a new one when none was assigned, which the dispatcher prevents). */
export function requestIdOf(req: IncomingMessage): string {
  return (req as WithId)[REQUEST_ID] ?? uuidv7();
}
