// Request metrics and tracing, in the one place every request ends: the dispatcher watches each request once, and
// when its response closes this writes the access-log line, records the HTTP metric families and ends the span.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../observability/logger.js';
import { requestLabels, UNMATCHED, type RequestLabels, type Surface } from '../../observability/metric-labels.js';
import type { MetricsRegistry } from '../../observability/metrics-registry.js';
import type { RequestSpan, RequestTracer } from '../../observability/request-tracer.js';
import { logWhenDone } from './access-log.js';
import { clientIp, NO_TRUSTED_PROXIES, type TrustedProxies } from './client-address.js';

export interface RequestObserverOptions {
  logger: Logger;
  metrics: MetricsRegistry;
  tracer: RequestTracer;
  /** MOUNT_PATH: cut from admin route patterns so a route class reads the same in every deployment. */
  mountPath: string;
  /** In-memory request counts per minute for analytics (services/analytics/request-counters.ts); no I/O per request. */
  requestCounts?: { count(labels: RequestLabels): void } | undefined;
  /** STORE_TRUSTED_PROXIES: from these peers the access log believes X-Forwarded-For; default: nobody. */
  trustedProxies?: TrustedProxies | undefined;
}

export interface WatchFields {
  requestId: string;
  surface: Surface;
  /** Read once the response has closed: the S3 operation or the route pattern, never anything from the URL. */
  routeClass: () => string;
  /** Also log the route class as `op` (the S3 plane's access-log field). */
  logOp?: boolean;
}

export class RequestObserver {
  private readonly patterns = new WeakMap<IncomingMessage, string>();

  constructor(private readonly opts: RequestObserverOptions) {}

  /**
   * Watches one request until its response closes. Returns its span (when tracing is on), in whose context the
   * caller should run the handler.
   */
  watch(req: IncomingMessage, res: ServerResponse, fields: WatchFields): RequestSpan | undefined {
    const span = this.opts.tracer.begin(req.headers);
    logWhenDone(
      this.opts.logger,
      { req, res },
      {
        requestId: fields.requestId,
        surface: fields.surface,
        clientIp: clientIp(req, this.opts.trustedProxies ?? NO_TRUSTED_PROXIES),
        op: fields.logOp ? fields.routeClass : undefined,
        onDone: (status, seconds) => {
          const labels = requestLabels({
            surface: fields.surface,
            method: req.method,
            routeClass: fields.routeClass(),
            status,
          });
          this.opts.metrics.observeRequest(labels, seconds);
          this.opts.requestCounts?.count(labels);
          span?.end(labels, status);
        },
      },
    );
    return span;
  }

  /** Counts a request Node could not parse: no method, no route, no timing (recorded as 0 s). */
  unparsed(status: number): void {
    const labels = requestLabels({ surface: 'unparsed', method: undefined, routeClass: UNMATCHED, status });
    this.opts.metrics.observeRequest(labels, 0);
    this.opts.requestCounts?.count(labels);
    this.opts.tracer.begin({})?.end(labels, status);
  }

  /** Remembers the pattern of the route Fastify matched (`routeOptions.url`; undefined for a 404). */
  notePattern(req: IncomingMessage, pattern: string | undefined): void {
    if (pattern === undefined) return;
    const mount = this.opts.mountPath;
    this.patterns.set(req, mount !== '' && pattern.startsWith(mount) ? pattern.slice(mount.length) || '/' : pattern);
  }

  /** The matched route's pattern without the mount path, or 'unmatched'. */
  patternOf(req: IncomingMessage): string {
    return this.patterns.get(req) ?? UNMATCHED;
  }
}
