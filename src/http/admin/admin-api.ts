// The admin API under /api/admin (Fastify plugin): the auth gate, the routes, the JSON error envelope, and 404s in
// the envelope.

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { AccessKeyService } from '../../services/access-key-service.js';
import type { AdminAuthService } from '../../services/admin-auth-service.js';
import type { AuditSink } from '../../services/audit/audit-events.js';
import { installAdminAuth } from './admin-auth-hook.js';
import { envelope, handleAdminError } from './error-json.js';
import { authRoutes } from './routes/auth.js';
import { healthRoutes, type HealthDeps } from './routes/health.js';
import { keysRoutes } from './routes/keys.js';
import { webhooksRoutes, type WebhooksRouteDeps } from './routes/webhooks.js';

export interface AdminDeps extends HealthDeps, WebhooksRouteDeps {
  /** Resolves when every metadata commit so far is on disk; state-changing answers wait for it. */
  durable: () => Promise<void>;
  auth: AdminAuthService;
  audit: AuditSink;
  /** Scoped access keys (routes/keys.ts). */
  keys: AccessKeyService;
}

export async function adminApi(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.setErrorHandler(handleAdminError);
  installAdminAuth(app, deps.auth);
  // "A 200 means durable" for the admin API too: any answer to a method that may write waits for the WAL fsync.
  app.addHook('onSend', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') await deps.durable();
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(envelope(new AppError('NotFound', { message: `No admin route ${req.method} ${req.url.split('?')[0]}` })));
  });
  healthRoutes(app, deps);
  authRoutes(app, deps);
  keysRoutes(app, deps);
  webhooksRoutes(app, deps);
}
