// STORE_INIT_BUCKETS at boot (config/init-buckets-config.ts has the list's form): the names checked against S3's
// rules before anything is written, then each bucket that does not exist yet created through the bucket service,
// so versioning and object lock are the real thing. An existing bucket is left as it is, whatever the list says.

import { isAppError } from '../core/errors.js';
import { validateBucketName } from '../core/names.js';
import { initBuckets } from '../config/init-buckets-config.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { BucketService } from '../services/bucket-service.js';

/** The listed names S3 would refuse, each as a refusal naming the bucket and the rule. */
export function initBucketProblems(config: Pick<Config, 'STORE_INIT_BUCKETS'>): string[] {
  const problems: string[] = [];
  for (const { name } of initBuckets(config)) {
    try {
      validateBucketName(name);
    } catch (err) {
      if (!isAppError(err)) throw err;
      const rule = err.message.replace(/^The specified bucket is not valid: /, '');
      problems.push(`STORE_INIT_BUCKETS: '${name}' is not a valid bucket name (${rule})`);
    }
  }
  return problems;
}

/** Creates the listed buckets that are missing; says so for each, and warns where an existing one differs. */
export function createInitBuckets(
  buckets: BucketService,
  config: Pick<Config, 'STORE_INIT_BUCKETS'>,
  logger: Logger,
): void {
  const wants = initBuckets(config);
  if (wants.length === 0) return;
  const present = new Map(buckets.list().map((b) => [b.name, b]));
  for (const wanted of wants) {
    const existing = present.get(wanted.name);
    if (!existing) {
      buckets.create(wanted.name, { versioning: wanted.versioned, objectLock: wanted.locked });
      const { versioned, locked } = wanted;
      logger.info({ bucket: wanted.name, versioned, locked }, 'created bucket listed in STORE_INIT_BUCKETS');
      continue;
    }
    const isVersioned = existing.versioning === 'Enabled';
    if (isVersioned !== wanted.versioned || existing.objectLock !== wanted.locked) {
      logger.warn(
        {
          bucket: wanted.name,
          versioning: existing.versioning,
          objectLock: existing.objectLock,
          versioned: wanted.versioned,
          locked: wanted.locked,
        },
        'bucket listed in STORE_INIT_BUCKETS exists with other settings; left as it is',
      );
    }
  }
}
