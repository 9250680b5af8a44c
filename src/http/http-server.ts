// The one listener: a raw node:http dispatcher in front of Fastify. It assigns the request id, enforces MOUNT_PATH,
// tracks requests for the drain, watches every request to its end (access log, metrics, span), and sends /api/admin,
// /admin and /metrics to Fastify and everything else to the framework-free S3 plane (docs/decisions.md: "S3 plane as
// a raw dispatcher"). A request whose Host names a bucket (STORE_DOMAIN) is the S3 plane's whatever its path.

import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';
import { UNMATCHED, type Surface } from '../observability/metric-labels.js';
import type { MetricsRegistry } from '../observability/metrics-registry.js';
import { RequestTracer } from '../observability/request-tracer.js';
import { adminApi, type AdminDeps } from './admin/admin-api.js';
import { consoleRoutes } from './admin/console-route.js';
import { envelope } from './admin/error-json.js';
import { metricsRoute, type MetricsRouteOptions } from './admin/metrics-route.js';
import { trackAnswer, deferUnparsed } from './shared/answer-order.js';
import { Drain } from './shared/drain.js';
import { isLingering } from './shared/lingering-close.js';
import { RequestObserver, type RequestObserverOptions } from './shared/request-observer.js';
import { SlowBodyGuard } from './shared/slow-body-guard.js';
import { assignRequestId, requestIdOf, setRequestIdHeaders } from './shared/request-id.js';
import { sendS3Error } from './s3/respond.js';
import { VirtualHosts } from './s3/virtual-hosts.js';
import { buildAppErrorXml } from './s3/xml/error.js';
import { AppError } from '../core/errors.js';
import { uuidv7 } from '../lib/ids.js';

export interface S3Plane {
  /** `onOp` receives the S3 operation once resolved: the request's route class in metrics, logs and spans. */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: {
      requestId: string;
      mountPath: string;
      onOp: (op: string) => void;
      hostBucket?: string;
      expectsContinue?: boolean;
    },
  ): void;
}

export interface HttpServerOptions {
  mountPath: string;
  logger: Logger;
  s3: S3Plane;
  admin: Omit<AdminDeps, 'isDraining'>;
  metrics: MetricsRegistry;
  /** METRICS_MODE and METRICS_TOKEN for GET /metrics. */
  metricsEndpoint: Pick<MetricsRouteOptions, 'mode' | 'token'>;
  /** Request spans (OTEL_TRACING_ENABLED); default: off. */
  tracer?: RequestTracer;
  /** Counts every finished request in memory for analytics (RequestObserverOptions.requestCounts). */
  requestCounts?: RequestObserverOptions['requestCounts'];
  /** The admin console's build directory (web/ built by Vite), served at MOUNT_PATH/admin; unset: no console. */
  consoleDir?: string;
  /** STORE_DOMAIN: Hosts that name a bucket (virtual-hosted style); default: none, path-style only. */
  virtualHosts?: VirtualHosts;
}

export interface HttpServer {
  server: Server;
  fastify: FastifyInstance;
  drain: Drain;
}

const under = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`);

/**
 * The Fastify surface a path belongs to, relative to the mount path, or undefined for the S3 plane. Matching is
 * exact-case, like Fastify's routes. The admin API takes every method; the console (/admin) and /metrics are
 * read-only, so any other method there is an S3 request for the reserved bucket name, which the S3 plane refuses
 * with InvalidBucketName.
 */
function fastifySurface(method: string, path: string): Surface | undefined {
  if (under(path, '/api/admin')) return 'admin';
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  if (under(path, '/admin')) return 'console';
  return path === '/metrics' || path.startsWith('/metrics?') ? 'metrics' : undefined;
}

/**
 * Answers a request Node could not parse (bad framing, headers over the size limit, headers too slow) the way the
 * dispatcher answers everything else: an S3 error document carrying a request id, and one access-log line.
 */
function clientErrorHandler(
  logger: Logger,
  observer: RequestObserver,
): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // A reset connection has nobody to answer (https://nodejs.org/api/http.html#event-clienterror).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // Behind a request still being answered: no answer may overtake its answer (answer-order.ts).
    if (deferUnparsed(socket)) {
      logger.info(
        { surface: 'unparsed', error: err.code },
        'unparsable bytes after a request in progress: the connection closes after its answer',
      );
      return;
    }
    const code =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'RequestHeaderSectionTooLarge'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'RequestTimeout'
          : 'InvalidRequest';
    const appError = new AppError(
      code,
      code === 'InvalidRequest' ? { message: 'The request could not be parsed as HTTP/1.1.' } : {},
    );
    const requestId = uuidv7();
    logger.info(
      { reqId: requestId, surface: 'unparsed', status: appError.statusCode, error: err.code },
      'request completed',
    );
    observer.unparsed(appError.statusCode);
    if (socket.writable) {
      const body = buildAppErrorXml(appError, { requestId });
      socket.write(
        `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode] ?? ''}\r\nX-Request-Id: ${requestId}\r\n` +
          `X-Amz-Request-Id: ${requestId}\r\nContent-Type: application/xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

export async function createHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const drain = new Drain();
  const mount = opts.mountPath;
  const virtualHosts = opts.virtualHosts ?? new VirtualHosts([]);
  // The Fastify surface of a request, or undefined for the S3 plane: on a Host that names a bucket, every path is that
  // bucket's (the console and admin API stay on the other Hosts: docs/decisions.md "Virtual-host addressing").
  const surfaceOf = (req: IncomingMessage, path: string, hostBucket: string | undefined): Surface | undefined =>
    hostBucket === undefined ? fastifySurface(req.method ?? 'GET', path) : undefined;
  const tracer = opts.tracer ?? new RequestTracer({ enabled: false });
  const observer = new RequestObserver({
    logger: opts.logger,
    metrics: opts.metrics,
    tracer,
    mountPath: mount,
    requestCounts: opts.requestCounts,
    trustedProxies: opts.admin.trustedProxies,
  });

  // A body that trickles in is cut with RequestTimeout, in the surface's error format (slow-body-guard.ts).
  const slowBodies = new SlowBodyGuard();
  const answerSlowBody = (req: IncomingMessage, res: ServerResponse, requestId: string): void => {
    const err = new AppError('RequestTimeout');
    if (
      surfaceOf(req, (req.url ?? '/').slice(mount.length) || '/', virtualHosts.bucketOf(req.headers.host)) === undefined
    ) {
      sendS3Error({ req, res }, err, requestId);
      return;
    }
    res
      .writeHead(err.statusCode, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
      .end(JSON.stringify(envelope(err)));
  };

  /**
   * `expectsContinue`: the request came with `Expect: 100-continue` (Node's 'checkContinue'), and its client waits for
   * `100 Continue` before sending the body. The surface that reads the body sends it first: the admin plane at once,
   * the S3 plane once the request is authenticated and authorized, so a refused upload hears its error before sending
   * a byte (docs/decisions.md "Expect: 100-continue").
   */
  const dispatch = (
    req: IncomingMessage,
    res: ServerResponse,
    to: { fastify: (req: IncomingMessage, res: ServerResponse) => void; expectsContinue: boolean },
  ): void => {
    if (isLingering(req.socket)) {
      req.socket.destroy();
      return;
    }
    const requestId = assignRequestId(req);
    drain.track(req, res);
    trackAnswer(req, res);
    slowBodies.watch(req, res, () => answerSlowBody(req, res, requestId));
    const url = req.url ?? '/';
    if (mount !== '' && !(url === mount || url.startsWith(`${mount}/`) || url.startsWith(`${mount}?`))) {
      observer.watch(req, res, { requestId, surface: 'outside-mount', routeClass: () => UNMATCHED });
      sendS3Error({ req, res }, new AppError('NotFound', { message: 'Not found: outside the mount path' }), requestId);
      return;
    }
    const path = url.slice(mount.length) || '/';
    const hostBucket = virtualHosts.bucketOf(req.headers.host);
    const surface = surfaceOf(req, path, hostBucket);
    if (surface !== undefined) {
      setRequestIdHeaders(res, requestId);
      const span = observer.watch(req, res, { requestId, surface, routeClass: () => observer.patternOf(req) });
      if (to.expectsContinue) res.writeContinue();
      RequestTracer.within(span, () => to.fastify(req, res));
      return;
    }
    let op = 'Unknown';
    const span = observer.watch(req, res, { requestId, surface: 's3', routeClass: () => op, logOp: true });
    RequestTracer.within(span, () =>
      opts.s3.handle(req, res, {
        requestId,
        mountPath: mount,
        hostBucket,
        expectsContinue: to.expectsContinue,
        onOp: (resolved) => {
          op = resolved;
        },
      }),
    );
  };

  let server: Server | undefined;
  const fastify = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: (req) => requestIdOf(req),
    // The dispatcher writes one access-log line per request (shared/access-log.ts); Fastify's own pair of
    // 'incoming request' / 'request completed' lines would double it and log raw URLs.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { caseSensitive: true },
    clientErrorHandler: clientErrorHandler(opts.logger, observer),
    bodyLimit: 1024 * 1024,
    // A property a schema does not allow is a 400 naming it, never dropped in silence (Fastify's default Ajv strips
    // it under `additionalProperties: false`): a misspelt field must not read as a setting quietly ignored.
    ajv: { customOptions: { removeAdditional: false } },
    serverFactory: (handler) => {
      server = createServer(
        {
          // Slow clients: headers must arrive within 30 s (checked every 5 s, so a header trickle or a connection
          // that never sends one is closed within 35 s); a body must keep up the slow-body limit (SlowBodyGuard),
          // however long it is.
          headersTimeout: 30_000,
          connectionsCheckingInterval: 5_000,
          requestTimeout: 0,
          // An idle keep-alive connection is kept 30 s (Node's default is 5 s; `Keep-Alive: timeout=30` tells clients).
          // A client whose event loop is busy past the timeout (the AWS SDK computing a 64 MiB part's checksum on a
          // loaded machine) reuses a socket the server has just closed and fails with "socket hang up"; 30 s makes
          // that as unlikely as it is against AWS, and silent connections are let go within ~35 s either way.
          keepAliveTimeout: 30_000,
        },
        (req, res) => dispatch(req, res, { fastify: handler, expectsContinue: false }),
      );
      // With a 'checkContinue' listener Node no longer answers `100 Continue` by itself (nor emits 'request'): the
      // dispatcher decides when, or whether, the body is asked for.
      server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) =>
        dispatch(req, res, { fastify: handler, expectsContinue: true }),
      );
      // An idle socket (no bytes either way) is closed after two minutes.
      server.setTimeout(120_000);
      return server;
    },
  });
  // Everything Fastify owns but has no route for (the console or /metrics when not served) gets the admin envelope.
  fastify.setNotFoundHandler((req, reply) => {
    void reply
      .status(404)
      .send(envelope(new AppError('NotFound', { message: `No route ${req.method} ${req.url.split('?')[0] ?? ''}` })));
  });
  // The route class of a Fastify request is its route's pattern (`/api/admin/keys/:id`), never the URL.
  fastify.addHook('onRequest', (req, _reply, done) => {
    observer.notePattern(req.raw, req.routeOptions.url);
    done();
  });
  metricsRoute(fastify, { ...opts.metricsEndpoint, metrics: opts.metrics, mountPath: mount });
  if (opts.consoleDir !== undefined) consoleRoutes(fastify, { dir: opts.consoleDir, mountPath: mount });
  await fastify.register(adminApi, { prefix: `${mount}/api/admin`, ...opts.admin, isDraining: () => drain.isDraining });
  await fastify.ready();
  if (!server) throw new Error('Fastify did not create the HTTP server');
  return { server, fastify, drain };
}
