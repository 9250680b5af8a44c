// The bucket notification keys (docs/configuration.md "Bucket notifications"): how often a delivery is attempted
// before it is dead-lettered, and the full-jitter backoff between attempts (the global webhook's by default).

import { Type } from '@sinclair/typebox';

export const NOTIFICATION_KEYS = {
  STORE_NOTIFY_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 8,
    description: 'Attempts before a bucket notification is dead-lettered (1 to 100)',
  }),
  STORE_NOTIFY_RETRY_BASE_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 2000,
    description: 'Full-jitter backoff base between notification attempts (0 to 1 h)',
  }),
  STORE_NOTIFY_RETRY_CAP_MS: Type.Integer({
    minimum: 0,
    maximum: 86_400_000,
    default: 3_600_000,
    description: 'Full-jitter backoff cap between notification attempts (0 to 24 h)',
  }),
};
