// The one listener: a raw node:http dispatcher in front of Fastify. It assigns the request id, enforces MOUNT_PATH,
// tracks requests for the drain, and sends /api/admin, /admin and /metrics to Fastify and everything else to the
// framework-free S3 plane (docs/decisions.md: "S3 plane as a raw dispatcher").

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';
import { adminApi, type AdminDeps } from './admin/admin-api.js';
import { Drain } from './shared/drain.js';
import { assignRequestId, requestIdOf } from './shared/request-id.js';
import { sendS3Error } from './s3/respond.js';
import { AppError } from '../core/errors.js';

export interface S3Plane {
  handle(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string; mountPath: string }): void;
}

export interface HttpServerOptions {
  mountPath: string;
  logger: Logger;
  s3: S3Plane;
  admin: Omit<AdminDeps, 'isDraining'>;
}

export interface HttpServer {
  server: Server;
  fastify: FastifyInstance;
  drain: Drain;
}

/** Surfaces that belong to Fastify, relative to the mount path. Matching is exact-case, like Fastify's routes. */
function isFastifyPath(path: string): boolean {
  return (
    path === '/api/admin' || path.startsWith('/api/admin/') || path.startsWith('/api/admin?') ||
    path === '/admin' || path.startsWith('/admin/') || path.startsWith('/admin?') ||
    path === '/metrics' || path.startsWith('/metrics?')
  );
}

export async function createHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const drain = new Drain();
  const mount = opts.mountPath;

  const dispatch = (req: IncomingMessage, res: ServerResponse, fastifyHandler: (req: IncomingMessage, res: ServerResponse) => void): void => {
    const requestId = assignRequestId(req, res);
    drain.track(req, res);
    const url = req.url ?? '/';
    if (mount !== '' && !(url === mount || url.startsWith(`${mount}/`) || url.startsWith(`${mount}?`))) {
      sendS3Error(req, res, new AppError('NotFound', { message: 'Not found: outside the mount path' }), requestId);
      return;
    }
    const path = url.slice(mount.length) || '/';
    if (isFastifyPath(path)) {
      fastifyHandler(req, res);
      return;
    }
    opts.s3.handle(req, res, { requestId, mountPath: mount });
  };

  let server: Server | undefined;
  const fastify = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: (req) => requestIdOf(req),
    routerOptions: { caseSensitive: true },
    bodyLimit: 1024 * 1024,
    serverFactory: (handler) => {
      server = createServer(
        {
          // Slow clients: headers must arrive within 30 s; a body may take as long as it keeps moving.
          headersTimeout: 30_000,
          requestTimeout: 0,
          keepAliveTimeout: 5_000,
        },
        (req, res) => dispatch(req, res, handler),
      );
      // An idle socket (no bytes either way) is closed after two minutes.
      server.setTimeout(120_000);
      return server;
    },
  });
  await fastify.register(adminApi, { prefix: `${mount}/api/admin`, startedAt: opts.admin.startedAt, isDraining: () => drain.isDraining });
  await fastify.ready();
  if (!server) throw new Error('Fastify did not create the HTTP server');
  return { server, fastify, drain };
}
