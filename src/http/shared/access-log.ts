// The access log for the surfaces the dispatcher answers itself or hands to Fastify (admin API, console, metrics,
// requests outside MOUNT_PATH): one JSON line per request, in the same shape as the S3 plane's line.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeUrl, type Logger } from '../../observability/logger.js';

export type Surface = 's3' | 'admin' | 'outside-mount';

/**
 * Writes one 'request completed' line when the response ends or its connection closes first (then `aborted`).
 * The URL is logged without query-auth parameters; headers are never logged.
 */
export function logWhenDone(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  fields: { requestId: string; surface: Surface; op?: () => string },
): void {
  const started = process.hrtime.bigint();
  res.once('close', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      {
        reqId: fields.requestId,
        surface: fields.surface,
        method: req.method,
        url: safeUrl(req.url ?? '/'),
        ...(fields.op ? { op: fields.op() } : {}),
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      'request completed',
    );
  });
}
