// Writes S3 responses: a response value from a handler, or an error rendered once as S3 XML.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppError } from '../../core/errors.js';
import { toClientError } from '../../core/system-errors.js';
import { endUnreadBody } from '../shared/request-bytes.js';
import { requestIdHead, requestIdOf } from '../shared/request-id.js';
import type { S3Response } from './context.js';
import { buildAppErrorXml } from './xml/error.js';

const XML = 'application/xml';

export function xmlResponse(body: string, status = 200, headers: S3Response['headers'] = {}): S3Response {
  return { status, headers: { 'Content-Type': XML, ...headers }, body };
}

/**
 * Sends a handler's response. A stream that fails mid-body destroys the socket: the client sees a truncated reply,
 * never wrong bytes.
 */
export async function sendResponse(req: IncomingMessage, res: ServerResponse, response: S3Response): Promise<void> {
  const { status, body } = response;
  if (body === undefined || req.method === 'HEAD' || status === 304) {
    if (body instanceof Readable) body.destroy();
    const head = new ResponseHead(requestIdOf(req), response.headers);
    head.endsWithoutBody(status);
    res.writeHead(status, head.list).end();
    return;
  }
  const inHand = typeof body === 'string' || Buffer.isBuffer(body);
  const head = new ResponseHead(
    requestIdOf(req),
    response.headers,
    inHand ? { contentLength: Buffer.byteLength(body) } : {},
  );
  res.writeHead(status, head.list);
  if (inHand) res.end(body);
  else await pipeline(body, res);
}

/**
 * Renders an error as S3 XML with the request id. Other errors become InsufficientStorage (507) for a full volume and
 * InternalError (500) otherwise (core/system-errors.ts), and are the caller's to log. If headers were already sent,
 * the connection is destroyed instead.
 */
export function sendS3Error(
  { req, res }: { req: IncomingMessage; res: ServerResponse },
  err: unknown,
  requestId: string,
): AppError {
  const appError = toClientError(err);
  if (res.headersSent) {
    res.destroy();
    return appError;
  }
  const status = appError.statusCode;
  const body = req.method === 'HEAD' || status === 304 ? undefined : buildAppErrorXml(appError, { requestId });
  const head = new ResponseHead(
    requestId,
    appError.headers,
    body === undefined ? {} : { contentLength: Buffer.byteLength(body) },
  );
  if (body === undefined) head.endsWithoutBody(status);
  else head.add('Content-Type', XML);
  // A body the handler never read (an early error on an upload) cannot be left on a keep-alive connection; the rest
  // of it is read and discarded for a moment after the answer, so the client reads the answer (lingering-close.ts).
  if (endUnreadBody(req)) head.add('Connection', 'close');
  res.writeHead(status, head.list).end(body);
  return appError;
}

/**
 * An S3 response head as one flat name/value list for a single writeHead call: the request id pair, then the given
 * headers (a name given twice in different case keeps its last value, as setHeader would), then what the sender adds.
 * One writeHead with a list skips the bookkeeping of a setHeader per header, a twentieth of a HEAD's CPU
 * (docs/performance.md, "the per-request CPU of every signed request"). Headers set on the response before (CORS) are
 * merged in by Node.
 */
class ResponseHead {
  readonly list: string[];
  private hasContentLength = false;

  constructor(requestId: string, headers: S3Response['headers'], opts: { contentLength?: number } = {}) {
    this.list = requestIdHead(requestId);
    let seen: Set<string> | undefined;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        // The length of a body in hand is measured, not taken from the handler.
        if (opts.contentLength !== undefined) continue;
        this.hasContentLength = true;
      }
      if (seen?.has(lower) === true) this.remove(lower);
      (seen ??= new Set()).add(lower);
      this.list.push(name, String(value));
    }
    if (opts.contentLength !== undefined) this.add('Content-Length', opts.contentLength);
  }

  add(name: string, value: string | number): void {
    this.list.push(name, String(value));
  }

  /**
   * For an answer without a body: a HEAD keeps the Content-Length of the body it stands for, others say 0, a 304 says
   * nothing.
   */
  endsWithoutBody(status: number): void {
    if (!this.hasContentLength && status !== 304) this.add('Content-Length', 0);
  }

  private remove(lower: string): void {
    for (let i = this.list.length - 2; i >= 0; i -= 2) {
      if ((this.list[i] as string).toLowerCase() === lower) this.list.splice(i, 2);
    }
  }
}
