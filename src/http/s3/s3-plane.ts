// The S3 data plane: resolve the operation, authenticate, run its handler, send the response or the error,
// and write one access-log line. Framework-free: a plain (req, res) function behind the dispatcher.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../core/errors.js';
import { safeUrl, type Logger } from '../../observability/logger.js';
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
    const started = process.hrtime.bigint();
    let op = 'Unknown';
    void this.run(req, res, ctx, (resolved) => { op = resolved; })
      .catch((err: unknown) => {
        const appError = sendS3Error(req, res, err, ctx.requestId);
        if (appError.statusCode >= 500) this.opts.logger.error({ err, reqId: ctx.requestId, op }, 'S3 request failed');
      })
      .finally(() => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        this.opts.logger.info(
          { reqId: ctx.requestId, surface: 's3', method: req.method, url: safeUrl(req.url ?? '/'), op, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
          'request completed',
        );
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
