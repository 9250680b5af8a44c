// Object lock: the bucket's configuration (default retention), a version's retention and legal hold,
// the x-amz-object-lock-* headers, and the rules deciding who may delete a version or change its lock.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html

import { AppError } from './errors.js';
import { DAY_MS, parseIso8601 } from './iso8601.js';
import type { VersioningState } from './versioning.js';

export type RetentionMode = 'GOVERNANCE' | 'COMPLIANCE';
export type LegalHoldStatus = 'ON' | 'OFF';

export interface DefaultRetention {
  mode: RetentionMode;
  /** Exactly one of days and years, a positive integer. */
  days?: number;
  years?: number;
}

/** PutObjectLockConfiguration's model: lock is on (it cannot be turned off), with an optional default. */
export interface ObjectLockConfiguration {
  enabled: true;
  defaultRetention?: DefaultRetention;
}

/** A version's retention. The date is an ISO 8601 UTC string (toISOString form) so the model is plain JSON. */
export interface ObjectRetention {
  mode: RetentionMode;
  retainUntilDate: string;
}

export const MAX_RETENTION_DAYS = 36_500;
export const MAX_RETENTION_YEARS = 100;
/** "Amazon S3 counts 1 year as 365 days" (Object Lock retention durations). */
const YEAR_MS = 365 * DAY_MS;

export const LOCKED_MESSAGE = 'Access Denied because object protected by object lock.';

function argument(name: string, message: string, value?: string): AppError {
  const details: Record<string, string> =
    value === undefined ? { ArgumentName: name } : { ArgumentName: name, ArgumentValue: value };
  return new AppError('InvalidArgument', { message, details });
}

function isPositiveInteger(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

/**
 * Checks a bucket's object lock configuration. Throws AppError MalformedXML for a missing or unknown
 * mode or for not exactly one of days and years (as S3 answers those), InvalidArgument for a period
 * that is not a positive integer or exceeds 36,500 days / 100 years.
 */
export function validateObjectLockConfiguration(config: ObjectLockConfiguration): void {
  if (config.enabled !== true) throw new AppError('MalformedXML', { message: 'ObjectLockEnabled must be Enabled.' });
  const rule = config.defaultRetention;
  if (rule === undefined) return;
  if (rule.mode !== 'GOVERNANCE' && rule.mode !== 'COMPLIANCE') {
    throw new AppError('MalformedXML', { message: 'DefaultRetention Mode must be GOVERNANCE or COMPLIANCE.' });
  }
  if ((rule.days === undefined) === (rule.years === undefined)) {
    throw new AppError('MalformedXML', { message: 'DefaultRetention needs exactly one of Days and Years.' });
  }
  const byDays = rule.days !== undefined;
  const name = byDays ? 'Days' : 'Years';
  const value = byDays ? rule.days : rule.years;
  if (!isPositiveInteger(value)) throw argument(name, 'Default retention period must be a positive integer value.');
  if (value > (byDays ? MAX_RETENTION_DAYS : MAX_RETENTION_YEARS)) {
    throw argument(name, 'Default retention period too large.');
  }
}

/**
 * Object lock can be configured only on a bucket whose versioning is Enabled.
 * Throws AppError InvalidBucketState (409).
 */
export function validateObjectLockBucketState(versioning: VersioningState): void {
  if (versioning !== 'Enabled') {
    throw new AppError('InvalidBucketState', {
      message: "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration",
    });
  }
}

/**
 * Checks a retention to be set: a known mode and a valid date in the future.
 * Throws AppError MalformedXML (mode or date malformed) or InvalidArgument (date not after `now`).
 */
export function validateRetention(retention: ObjectRetention, now: Date): void {
  if (retention.mode !== 'GOVERNANCE' && retention.mode !== 'COMPLIANCE') {
    throw new AppError('MalformedXML', { message: 'Retention Mode must be GOVERNANCE or COMPLIANCE.' });
  }
  const until = parseIso8601(retention.retainUntilDate);
  if (until === undefined) {
    throw new AppError('MalformedXML', { message: 'RetainUntilDate must be an ISO 8601 timestamp.' });
  }
  if (until.getTime() <= now.getTime()) {
    throw argument('RetainUntilDate', 'The retain until date must be in the future!');
  }
}

/** Checks a legal hold status. Throws AppError MalformedXML for anything but ON and OFF. */
export function validateLegalHold(status: LegalHoldStatus): void {
  if (status !== 'ON' && status !== 'OFF') {
    throw new AppError('MalformedXML', { message: 'Legal hold Status must be ON or OFF.' });
  }
}

/** The retention a new version gets from the bucket's default, or undefined when there is none. */
export function defaultRetentionFor(
  config: ObjectLockConfiguration | undefined,
  now: Date,
): ObjectRetention | undefined {
  const rule = config?.defaultRetention;
  if (rule === undefined) return undefined;
  const span = rule.days !== undefined ? rule.days * DAY_MS : (rule.years ?? 0) * YEAR_MS;
  return { mode: rule.mode, retainUntilDate: new Date(now.getTime() + span).toISOString() };
}

/** True while the retention protects the version (its date is still ahead of `now`). */
export function isRetentionActive(retention: ObjectRetention | undefined, now: Date): retention is ObjectRetention {
  if (retention === undefined) return false;
  const until = parseIso8601(retention.retainUntilDate);
  return until !== undefined && until.getTime() > now.getTime();
}

export type LockDecision = { allowed: true } | { allowed: false; error: AppError };

const ALLOWED: LockDecision = { allowed: true };
const denied = (): LockDecision => ({
  allowed: false,
  error: new AppError('AccessDenied', { message: LOCKED_MESSAGE }),
});

export interface DeleteVersionInput {
  retention: ObjectRetention | undefined;
  legalHold: LegalHoldStatus | undefined;
  /** x-amz-bypass-governance-retention: true, already checked against s3:BypassGovernanceRetention. */
  bypassGovernance: boolean;
  now: Date;
}

/**
 * May this version be permanently deleted (or overwritten away by a suspended-bucket PUT)? A legal
 * hold ON blocks it whatever else; an active COMPLIANCE retention blocks it; an active GOVERNANCE
 * retention blocks it unless bypassed. Delete markers carry no lock: callers pass neither.
 * Denial carries AppError AccessDenied "Access Denied because object protected by object lock."
 */
export function canDeleteVersion(input: DeleteVersionInput): LockDecision {
  if (input.legalHold === 'ON') return denied();
  if (!isRetentionActive(input.retention, input.now)) return ALLOWED;
  if (input.retention.mode === 'GOVERNANCE' && input.bypassGovernance) return ALLOWED;
  return denied();
}

export interface ChangeRetentionInput {
  current: ObjectRetention | undefined;
  /** undefined removes the retention (an empty `<Retention/>`). */
  next: ObjectRetention | undefined;
  bypassGovernance: boolean;
  now: Date;
}

/**
 * May PutObjectRetention replace `current` with `next`? Anyone may set a retention where none is
 * active, or extend one in the same mode. COMPLIANCE cannot be shortened, removed or changed to
 * GOVERNANCE while active, bypass or not. GOVERNANCE can be shortened, removed or changed to COMPLIANCE
 * only with bypass (s3-tests and S3 answer 403 for GOVERNANCE to COMPLIANCE without it).
 * Denial carries AppError AccessDenied. `next` itself is checked by validateRetention.
 */
export function canChangeRetention(input: ChangeRetentionInput): LockDecision {
  const { current, next } = input;
  if (!isRetentionActive(current, input.now)) return ALLOWED;
  const isExtension =
    next !== undefined &&
    next.mode === current.mode &&
    Date.parse(next.retainUntilDate) >= Date.parse(current.retainUntilDate);
  if (isExtension) return ALLOWED;
  if (current.mode === 'GOVERNANCE' && input.bypassGovernance) return ALLOWED;
  return denied();
}

/** The x-amz-object-lock-* request headers of PutObject, CopyObject and CreateMultipartUpload. */
export interface ObjectLockHeaders {
  mode?: string | undefined;
  retainUntilDate?: string | undefined;
  legalHold?: string | undefined;
}

export interface RequestedObjectLock {
  retention?: ObjectRetention;
  legalHold?: LegalHoldStatus;
}

/**
 * Reads the lock headers. Mode and date must come together; the mode is GOVERNANCE or COMPLIANCE;
 * the date ISO 8601 and after `now`; the legal hold ON or OFF. Throws AppError InvalidArgument with
 * S3's messages and ArgumentName. Whether the bucket allows locks is checkObjectLockEnabled's job.
 */
export function parseObjectLockHeaders(headers: ObjectLockHeaders, now: Date): RequestedObjectLock {
  const out: RequestedObjectLock = {};
  const { mode, retainUntilDate, legalHold } = headers;
  if ((mode === undefined) !== (retainUntilDate === undefined)) {
    const missing = mode === undefined ? 'x-amz-object-lock-mode' : 'x-amz-object-lock-retain-until-date';
    throw argument(missing, 'x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied');
  }
  if (mode !== undefined && retainUntilDate !== undefined) {
    if (mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') {
      throw argument('x-amz-object-lock-mode', 'Unknown wormMode directive.');
    }
    const until = parseIso8601(retainUntilDate);
    const dateHeader = 'x-amz-object-lock-retain-until-date';
    // AWS names the header and echoes the value it refused.
    if (until === undefined)
      throw argument(dateHeader, 'The retain until date must be provided in ISO 8601 format', retainUntilDate);
    if (until.getTime() <= now.getTime())
      throw argument(dateHeader, 'The retain until date must be in the future!', retainUntilDate);
    out.retention = { mode, retainUntilDate: until.toISOString() };
  }
  if (legalHold !== undefined) {
    if (legalHold !== 'ON' && legalHold !== 'OFF') {
      throw argument('x-amz-object-lock-legal-hold', "Legal Hold must be either of 'ON' or 'OFF'");
    }
    out.legalHold = legalHold;
  }
  return out;
}

/**
 * Lock headers, retention and legal-hold operations need a bucket with object lock.
 * Throws AppError InvalidRequest "Bucket is missing Object Lock Configuration".
 */
export function checkObjectLockEnabled(objectLockEnabled: boolean): void {
  if (!objectLockEnabled) {
    throw new AppError('InvalidRequest', { message: 'Bucket is missing Object Lock Configuration' });
  }
}
