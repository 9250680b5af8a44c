// Per-version object lock: retention (Put/GetObjectRetention) and legal hold (Put/GetObjectLegalHold). Every
// check runs inside the transaction that changes the row, so two racing requests cannot both pass the rule.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html

import { AppError } from '../../core/errors.js';
import {
  canChangeRetention,
  checkObjectLockEnabled,
  validateLegalHold,
  validateRetention,
  type LegalHoldStatus,
  type ObjectRetention,
} from '../../core/object-lock.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { getBucket, getObjectVersion, type VersionTarget } from './object-versions.js';

export class ObjectLockService {
  constructor(
    private readonly meta: MetadataStore,
    private readonly now: () => number,
  ) {}

  /**
   * The version's retention. Throws NoSuchBucket, InvalidRequest (the bucket has no object lock), NoSuchKey,
   * NoSuchVersion, MethodNotAllowed, NoSuchObjectLockConfiguration (the version has no retention).
   */
  getRetention(target: VersionTarget): ObjectRetention {
    checkObjectLockEnabled(getBucket(this.meta, target.bucket).objectLock);
    const row = getObjectVersion(this.meta, target);
    if (!row.retention) {
      throw new AppError('NoSuchObjectLockConfiguration', { resource: `/${target.bucket}/${target.key}` });
    }
    return row.retention;
  }

  /**
   * Sets (or, with undefined, removes) the version's retention and returns its version id. COMPLIANCE can only be
   * extended; GOVERNANCE can be shortened, removed or made COMPLIANCE only with `bypassGovernance`
   * (core/object-lock canChangeRetention). Throws AccessDenied for a change the lock forbids, InvalidArgument or
   * MalformedXML for a bad retention, and the lookup errors of getRetention().
   */
  putRetention(
    target: VersionTarget,
    retention: ObjectRetention | undefined,
    opts: { bypassGovernance: boolean },
  ): string {
    return this.meta.transaction(() => {
      checkObjectLockEnabled(getBucket(this.meta, target.bucket).objectLock);
      const row = getObjectVersion(this.meta, target, 'PUT');
      const now = new Date(this.now());
      if (retention !== undefined) validateRetention(retention, now);
      const decision = canChangeRetention({
        current: row.retention,
        next: retention,
        bypassGovernance: opts.bypassGovernance,
        now,
      });
      if (!decision.allowed) throw decision.error;
      this.meta.objects.setRetention(row.id, retention);
      return row.versionId;
    });
  }

  /**
   * The version's legal hold (OFF when none was ever set). Throws NoSuchBucket, InvalidRequest (no object lock on
   * the bucket), NoSuchKey, NoSuchVersion, MethodNotAllowed.
   */
  getLegalHold(target: VersionTarget): LegalHoldStatus {
    checkObjectLockEnabled(getBucket(this.meta, target.bucket).objectLock);
    return getObjectVersion(this.meta, target).legalHold ? 'ON' : 'OFF';
  }

  /**
   * Turns the version's legal hold on or off and returns its version id. Throws MalformedXML and the errors of
   * getLegalHold().
   */
  putLegalHold(target: VersionTarget, status: LegalHoldStatus): string {
    validateLegalHold(status);
    return this.meta.transaction(() => {
      checkObjectLockEnabled(getBucket(this.meta, target.bucket).objectLock);
      const row = getObjectVersion(this.meta, target, 'PUT');
      this.meta.objects.setLegalHold(row.id, status === 'ON');
      return row.versionId;
    });
  }
}
