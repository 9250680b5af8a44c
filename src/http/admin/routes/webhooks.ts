// GET /webhooks/status: whether webhooks are on, the outbox by status, the oldest pending row's age and the last
// delivery error. Never the URL (it may carry credentials) or the secret.

import { Type } from '@sinclair/typebox';
import type { WebhookStatus } from '../../../services/events/webhook-service.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody } from './schemas.js';

export interface WebhooksRouteDeps {
  webhooks: { status(): WebhookStatus };
}

const Count = Type.Integer({ minimum: 0 });
const Status = Type.Object(
  {
    enabled: Type.Boolean({ description: 'True when WEBHOOK_URL is set (the runner delivers)' }),
    counts: Type.Object(
      {
        pending: Count,
        delivered: Type.Integer({ minimum: 0, description: 'Kept 7 days after delivery' }),
        failed: Type.Integer({ minimum: 0, description: 'Dead-lettered after WEBHOOK_MAX_ATTEMPTS; kept 7 days' }),
      },
      { additionalProperties: false },
    ),
    oldestPendingAgeSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'null when nothing is pending',
    }),
    lastError: Type.Union(
      [
        Type.Object(
          {
            message: Type.String({
              description: 'e.g. "HTTP 503", "timed out after 5000 ms", "network error: ECONNREFUSED"',
            }),
            at: Type.String({ format: 'date-time' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The most recent failed attempt; null if none' },
    ),
  },
  { additionalProperties: false },
);

export function webhooksRoutes(app: AdminApp, deps: WebhooksRouteDeps): void {
  app.get(
    '/webhooks/status',
    {
      schema: {
        operationId: 'getWebhookStatus',
        tags: ['webhooks'],
        summary: 'Webhook delivery status: enabled flag, outbox counts, oldest pending age, last error',
        response: { 200: Status, 401: ErrorBody },
      },
    },
    async () => deps.webhooks.status(),
  );
}
