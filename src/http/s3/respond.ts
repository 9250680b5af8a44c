// Writes S3 responses: a response value from a handler, or an error rendered once as S3 XML.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppError } from '../../core/errors.js';
import { toClientError } from '../../core/system-errors.js';
import { lingerAfterAnswer } from '../shared/lingering-close.js';
import type { S3Response } from './context.js';
import { buildAppErrorXml } from './xml/error.js';

const XML = 'application/xml';

export function xmlResponse(body: string, status = 200, headers: S3Response['headers'] = {}): S3Response {
  return { status, headers: { 'Content-Type': XML, ...headers }, body };
}

/** Sends a handler's response. A stream that fails mid-body destroys the socket: the client sees a truncated reply, never wrong bytes. */
export async function sendResponse(req: IncomingMessage, res: ServerResponse, response: S3Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    if (value !== undefined) res.setHeader(name, value);
  }
  const body = response.body;
  if (body === undefined || req.method === 'HEAD' || response.status === 304) {
    if (body instanceof Readable) body.destroy();
    if (!res.hasHeader('Content-Length') && response.status !== 304) res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  await pipeline(body, res);
}

/**
 * Renders an error as S3 XML with the request id. Other errors become InsufficientStorage (507) for a full volume and
 * InternalError (500) otherwise (core/system-errors.ts), and are the caller's to log. If headers were already sent,
 * the connection is destroyed instead.
 */
export function sendS3Error(req: IncomingMessage, res: ServerResponse, err: unknown, requestId: string): AppError {
  const appError = toClientError(err);
  if (res.headersSent) {
    res.destroy();
    return appError;
  }
  res.statusCode = appError.statusCode;
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  // A body the handler never read (an early error on an upload) cannot be left on a keep-alive connection; the rest
  // of it is read and discarded for a moment after the answer, so the client reads the answer (lingering-close.ts).
  if (!req.complete) {
    res.setHeader('Connection', 'close');
    lingerAfterAnswer(req.socket as IncomingMessage['socket'] | null);
  }
  if (req.method === 'HEAD' || appError.statusCode === 304) {
    if (appError.statusCode !== 304) res.setHeader('Content-Length', 0);
    res.end();
    return appError;
  }
  const body = buildAppErrorXml(appError, { requestId });
  res.setHeader('Content-Type', XML);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
  return appError;
}
