// Public probes: liveness (/health) and readiness (/ready, 503 while draining).

import { Type } from '@sinclair/typebox';
import '../admin-throttle.js';
import type { AdminApp } from '../typebox-type-provider.js';

export interface HealthDeps {
  startedAt: number;
  isDraining: () => boolean;
}

const Health = Type.Object({ status: Type.Literal('ok'), uptime: Type.Number() });
const Ready = Type.Object({ status: Type.Union([Type.Literal('ready'), Type.Literal('draining')]) });

export function healthRoutes(app: AdminApp, deps: HealthDeps): void {
  app.get(
    '/health',
    {
      config: { public: true, unthrottled: true },
      schema: { operationId: 'health', tags: ['health'], summary: 'Liveness probe', response: { 200: Health } },
    },
    async () => ({
      status: 'ok' as const,
      uptime: Math.round((Date.now() - deps.startedAt) / 1000),
    }),
  );
  app.get(
    '/ready',
    {
      config: { public: true, unthrottled: true },
      schema: {
        operationId: 'ready',
        tags: ['health'],
        summary: 'Readiness probe (503 while draining)',
        response: { 200: Ready, 503: Ready },
      },
    },
    async (_req, reply) => {
      if (deps.isDraining()) return reply.status(503).send({ status: 'draining' as const });
      return { status: 'ready' as const };
    },
  );
}
