// The access log for every surface the dispatcher serves (S3 plane, admin API, console, metrics, requests outside
// MOUNT_PATH): one JSON line per request, written when its response ends; the same moment feeds the request metrics
// and span (request-observer.ts). The client address is the socket's, or X-Forwarded-For's from a trusted proxy.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Surface } from '../../observability/metric-labels.js';
import { safeUrl, type Logger } from '../../observability/logger.js';

export type { Surface };

/**
 * Writes one 'request completed' line when the response ends or its connection closes first (then `aborted`), then
 * calls `onDone` with the status actually sent (undefined when the client left before any) and the duration.
 * The URL is logged without query-auth parameters; headers are never logged.
 */
export function logWhenDone(
  logger: Logger,
  { req, res }: { req: IncomingMessage; res: ServerResponse },
  fields: {
    requestId: string;
    surface: Surface;
    /**
     * The client's address (client-address.ts `clientIp`), read when the request arrives: the socket may be gone at the
     * end.
     */
    clientIp?: string | undefined;
    op?: () => string;
    onDone?: (status: number | undefined, seconds: number) => void;
  },
): void {
  const started = process.hrtime.bigint();
  res.once('close', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // At LOG_LEVEL warn and above the line is not built at all (it would be dropped).
    if (logger.isLevelEnabled('info'))
      logger.info(
        {
          reqId: fields.requestId,
          surface: fields.surface,
          ...(fields.clientIp !== undefined ? { clientIp: fields.clientIp } : {}),
          method: req.method,
          url: safeUrl(req.url ?? '/'),
          ...(fields.op ? { op: fields.op() } : {}),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request completed',
      );
    fields.onDone?.(res.headersSent ? res.statusCode : undefined, ms / 1000);
  });
}
