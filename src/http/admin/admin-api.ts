// The admin API under /api/admin (Fastify plugin): routes, the JSON error envelope, and 404s in the envelope.

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import { envelope, handleAdminError } from './error-json.js';
import { healthRoutes, type HealthDeps } from './routes/health.js';

export type AdminDeps = HealthDeps;

export async function adminApi(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.setErrorHandler(handleAdminError);
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(envelope(new AppError('NotFound', { message: `No admin route ${req.method} ${req.url.split('?')[0]}` })));
  });
  healthRoutes(app, deps);
}
