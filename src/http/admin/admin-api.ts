// The admin API under /api/admin (Fastify plugin): the throttle, the auth gate, the routes, the JSON error envelope,
// 404s in the envelope, and the OpenAPI document generated from the route schemas.

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { AccessKeyService } from '../../services/identity/access-key-service.js';
import type { AdminAuthService } from '../../services/identity/admin-auth-service.js';
import type { AuditSink } from '../../services/audit/audit-events.js';
import type { TrustedProxies } from '../shared/client-address.js';
import type { ObjectSearchService } from '../../services/objects/object-search-service.js';
import { installAdminAuth } from './admin-auth-hook.js';
import { AdminThrottle } from './admin-throttle.js';
import { adminErrorHandler, envelope } from './error-json.js';
import { installJsonDepthLimit } from './json-depth.js';
import { registerOpenApi } from './openapi.js';
import type { TypeBoxTypeProvider } from './typebox-type-provider.js';
import { auditRoutes, type AuditRouteDeps } from './routes/audit.js';
import { backupRoutes, type BackupRouteDeps } from './routes/backup.js';
import { authRoutes, type AuthRouteDeps } from './routes/auth.js';
import { bucketsRoutes, type BucketRouteDeps } from './routes/buckets.js';
import { healthRoutes, type HealthDeps } from './routes/health.js';
import { keysRoutes } from './routes/keys.js';
import { metaRoutes, type MetaRouteDeps } from './routes/meta.js';
import { settingsRoutes } from './routes/settings.js';
import { objectsRoutes, type ObjectRouteDeps } from './routes/objects.js';
import { objectZipRoutes, type ZipRouteDeps } from './routes/object-zip.js';
import { usersRoutes, type UsersRouteDeps } from './routes/users.js';
import { searchRoutes } from './routes/search.js';
import { webhooksRoutes, type WebhooksRouteDeps } from './routes/webhooks.js';
import { notificationTargetRoutes, type NotificationTargetRouteDeps } from './routes/notification-targets.js';
import { bucketNotificationRoutes } from './routes/bucket-notification.js';
import { replicationRoutes, type ReplicationRouteDeps } from './routes/replication.js';
import { integrityRoutes, type IntegrityRouteDeps } from './routes/integrity.js';
import { analyticsRoutes, type AnalyticsRouteDeps } from './routes/analytics.js';

export interface AdminDeps
  extends
    HealthDeps,
    BucketRouteDeps,
    ObjectRouteDeps,
    ZipRouteDeps,
    WebhooksRouteDeps,
    NotificationTargetRouteDeps,
    ReplicationRouteDeps,
    IntegrityRouteDeps,
    AnalyticsRouteDeps,
    BackupRouteDeps {
  /** Resolves when every metadata commit so far is on disk; state-changing answers wait for it. */
  durable: () => Promise<void>;
  auth: AdminAuthService;
  audit: AuditSink;
  /** Scoped access keys (routes/keys.ts). */
  keys: AccessKeyService;
  sessions: AuthRouteDeps['sessions'];
  users: UsersRouteDeps['users'];
  auditLog: AuditRouteDeps['auditLog'];
  build: MetaRouteDeps['build'];
  workers: MetaRouteDeps['workers'];
  connection: MetaRouteDeps['connection'];
  /** MOUNT_PATH: scopes the refresh cookie. */
  mountPath: string;
  /** STORE_TRUSTED_PROXIES, parsed: whose X-Forwarded-For / -Proto to believe. */
  trustedProxies: TrustedProxies;
  /** The throttles' clock (tests); Date.now otherwise. */
  now?: () => number;
  /** Cross-bucket object search (GET /objects/search). */
  search: ObjectSearchService;
  /** Told of each request answered 500 InternalError (store_internal_errors_total{surface="admin"}). */
  onInternalError?: () => void;
}

export async function adminApi(fastify: FastifyInstance, deps: AdminDeps): Promise<void> {
  // Every route below reads its body, params and query typed from its own schemas.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(adminErrorHandler({ onInternalError: deps.onInternalError }));
  installJsonDepthLimit(app);
  // Before any route: swagger must see every route, and the throttle runs before authentication.
  await registerOpenApi(app, { version: deps.build.version });
  const throttle = new AdminThrottle({ trustedProxies: deps.trustedProxies, now: deps.now });
  throttle.install(app);
  installAdminAuth(app, deps.auth);
  // "A 200 means durable" for the admin API too: any answer to a method that may write waits for the WAL fsync.
  app.addHook('onSend', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') await deps.durable();
  });
  app.setNotFoundHandler((req, reply) => {
    void reply
      .status(404)
      .send(envelope(new AppError('NotFound', { message: `No admin route ${req.method} ${req.url.split('?')[0]}` })));
  });
  healthRoutes(app, deps);
  authRoutes(app, { ...deps, throttle });
  usersRoutes(app, deps);
  settingsRoutes(app, { ...deps, throttle });
  auditRoutes(app, deps);
  metaRoutes(app, deps);
  keysRoutes(app, deps);
  bucketsRoutes(app, deps);
  objectsRoutes(app, deps);
  objectZipRoutes(app, deps);
  searchRoutes(app, deps);
  webhooksRoutes(app, deps);
  notificationTargetRoutes(app, deps);
  bucketNotificationRoutes(app, deps);
  backupRoutes(app, deps);
  replicationRoutes(app, deps);
  integrityRoutes(app, deps);
  analyticsRoutes(app, deps);
}
