// The S3 data plane: resolve the operation, authenticate, run its handler, send the response or the error,
// and write one access-log line. Framework-free: a plain (req, res) function behind the dispatcher.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, isAppError } from '../../core/errors.js';
import type { Logger } from '../../observability/logger.js';
import { logWhenDone } from '../shared/access-log.js';
import type { SecretLookup } from '../../sigv4/types.js';
import { authenticate } from './authenticate.js';
import type { Owner, S3Context, S3Response, S3Services } from './context.js';
import { parseQuery, resolveEndpoint, type Endpoint } from './endpoints.js';
import { HANDLERS } from './handlers/index.js';
import { sendResponse, sendS3Error } from './respond.js';

export interface S3PlaneOptions {
  services: S3Services;
  logger: Logger;
  region: string;
  owner: Owner;
  lookup: SecretLookup;
  now?: () => Date;
}

export class S3PlaneHandler {
  constructor(private readonly opts: S3PlaneOptions) {}

  handle(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string; mountPath: string }): void {
    let op = 'Unknown';
    logWhenDone(this.opts.logger, req, res, { requestId: ctx.requestId, surface: 's3', op: () => op });
    this.run(req, res, ctx, (resolved) => { op = resolved; }).catch((err: unknown) => {
      if (isClientAbort(req, err)) {
        // The client went away mid-request: nothing to answer, and not a server error.
        res.destroy();
        return;
      }
      const appError = sendS3Error(req, res, err, ctx.requestId);
      if (appError.code === 'InternalError') this.opts.logger.error({ err, reqId: ctx.requestId, op }, 'S3 request failed');
    });
  }

  private async run(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string; mountPath: string }, onOp: (op: string) => void): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = (q < 0 ? url : url.slice(0, q)).slice(ctx.mountPath.length) || '/';
    const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
    const endpoint: Endpoint = resolveEndpoint(req.method ?? 'GET', rawPath, query, req.headers['x-amz-copy-source'] !== undefined);
    onOp(endpoint.op);
    const auth = authenticate(req, { region: this.opts.region, lookup: this.opts.lookup, ...(this.opts.now ? { now: this.opts.now } : {}) });
    if (endpoint.op === 'NotImplemented') {
      throw new AppError('NotImplemented', { message: `Store does not implement ${endpoint.feature} yet.` });
    }
    const context: S3Context = {
      req, endpoint, query, requestId: ctx.requestId, auth, services: this.opts.services, owner: this.opts.owner, region: this.opts.region,
    };
    const handler = HANDLERS[endpoint.op] as (c: S3Context) => Promise<S3Response>;
    const response = await handler(context);
    await sendResponse(req, res, response);
  }
}

/** A request whose client closed the connection before it was answered (Node reports 'aborted' / ECONNRESET). */
function isClientAbort(req: IncomingMessage, err: unknown): boolean {
  if (isAppError(err)) return false;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return req.destroyed || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error | undefined)?.message === 'aborted';
}
