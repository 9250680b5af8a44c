// Admin routes whose request body is streamed bytes (object and part uploads, restores): registered in a scope where
// every content type is handed to the handler as the raw request stream (no parsing, no buffering; the services
// enforce their own size limits while they stream the bytes to disk), plus the declared length they check against.

import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { requestBytes } from '../../shared/request-bytes.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { Binary } from './object-schemas.js';

/**
 * Registers `routes` in an encapsulated scope where every body is the raw request stream (other routes keep their
 * JSON parsing).
 */
export function rawBodyScope(app: AdminApp, routes: (scope: AdminApp) => void): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    routes(scope);
  });
}

/**
 * The OpenAPI body of a raw route: `*\/*` documents any media type while matching no request's own type, so Ajv never
 * looks at the stream.
 */
export function rawBodySchema(description?: string): { content: { '*/*': { schema: typeof Binary } } } {
  return { content: { '*/*': { schema: description ? { ...Binary, description } : Binary } } };
}

/** The request body stream. */
export function rawBody(req: FastifyRequest): Readable {
  return (req.body as Readable | undefined) ?? req.raw;
}

/**
 * The request body's bytes for an upload: a reader that stops early (a full disk, a bad digest) leaves the connection
 * open for the error answer (http/shared/request-bytes.ts).
 */
export function uploadBytes(req: FastifyRequest): AsyncIterable<Buffer> {
  return requestBytes(rawBody(req));
}

/**
 * The Content-Length header as a byte count, or undefined when absent (chunked). Throws ValidationError if malformed.
 */
export function declaredLength(req: FastifyRequest): number | undefined {
  const raw = req.headers['content-length'];
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new AppError('ValidationError', { message: 'content-length: not a byte count' });
  return Number(raw);
}
