// Request ids: every response carries X-Request-Id and X-Amz-Request-Id with the same value. A well-formed
// (UUID-shaped) incoming X-Request-Id is reused; anything else gets a new UUID v7. The dispatcher assigns the id;
// Fastify's surfaces get the headers set up front (setRequestIdHeaders), while the S3 plane writes them in its one
// response head (requestIdHead, s3/respond.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUuidShaped, uuidv7 } from '../../lib/ids.js';

const REQUEST_ID = Symbol('store.requestId');

type WithId = IncomingMessage & { [REQUEST_ID]?: string };

/** Assigns the request's id, without writing it anywhere yet. Idempotent. */
export function assignRequestId(req: IncomingMessage): string {
  const tagged = req as WithId;
  const existing = tagged[REQUEST_ID];
  if (existing) return existing;
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && isUuidShaped(incoming) ? incoming.toLowerCase() : uuidv7();
  tagged[REQUEST_ID] = id;
  return id;
}

/** The id assigned by assignRequestId (a new one when none was assigned, which the dispatcher prevents). */
export function requestIdOf(req: IncomingMessage): string {
  return (req as WithId)[REQUEST_ID] ?? uuidv7();
}

/** Sets both request id headers on a response whose head someone else writes (Fastify). */
export function setRequestIdHeaders(res: ServerResponse, id: string): void {
  res.setHeader('X-Request-Id', id);
  res.setHeader('X-Amz-Request-Id', id);
}

/** Both request id headers as the start of a flat name/value list, for a head written in one writeHead call. */
export function requestIdHead(id: string): string[] {
  return ['X-Request-Id', id, 'X-Amz-Request-Id', id];
}
