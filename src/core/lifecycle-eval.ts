// Lifecycle evaluation: which rule applies to a version or an upload, and which action is due at `now`.
// Pure functions over the model in lifecycle.ts; the worker applies the answer through the object
// service, which also refuses versions object lock protects (canDeleteVersion), as S3's lifecycle does.
// Timing: https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html

import { DAY_MS, parseIso8601, startOfUtcDay } from './iso8601.js';
import {
  type LifecycleConfiguration,
  type LifecycleRule,
  type LifecycleStorageClass,
  rulePrefix,
} from './lifecycle.js';
import type { Tag } from './tagging.js';

type Rules = LifecycleConfiguration['rules'];

/**
 * When an age-based action falls due: "adding the number of days specified in the rule to the object
 * creation time and rounding up the resulting time to the next day at midnight UTC" (10:30 on 1/15 plus
 * 3 days is 00:00 on 1/19). A sum already at midnight still moves to the next midnight, as MinIO does;
 * AWS does not say.
 */
export function lifecycleDueDate(start: Date, days: number): Date {
  return new Date(startOfUtcDay(new Date(start.getTime() + days * DAY_MS)).getTime() + DAY_MS);
}

/** What a filter looks at. Delete markers have size 0 and no tags. */
export interface LifecycleSubject {
  key: string;
  size: number;
  tags: readonly Tag[];
}

/** True when the rule is Enabled and its prefix, tags (all of them) and exclusive size bounds match. */
export function ruleMatches(rule: LifecycleRule, subject: LifecycleSubject): boolean {
  if (rule.status !== 'Enabled' || !subject.key.startsWith(rulePrefix(rule))) return false;
  const filter = rule.filter ?? {};
  for (const want of filter.tags ?? []) {
    if (!subject.tags.some((t) => t.key === want.key && t.value === want.value)) return false;
  }
  if (filter.objectSizeGreaterThan !== undefined && !(subject.size > filter.objectSizeGreaterThan)) return false;
  if (filter.objectSizeLessThan !== undefined && !(subject.size < filter.objectSizeLessThan)) return false;
  return true;
}

export interface LifecycleVersion extends LifecycleSubject {
  lastModified: Date;
  isLatest: boolean;
  isDeleteMarker: boolean;
  /** When the version became noncurrent (its successor's creation); undefined for the current one. */
  noncurrentSince?: Date;
  /** How many noncurrent versions of the key are newer than this one. */
  newerNoncurrentCount: number;
  /** True when the key has no other version (a current delete marker with nothing under it). */
  isOnlyVersion: boolean;
  /** The version's storage class; undefined is STANDARD. */
  storageClass?: string;
}

/**
 * - `expire-current`: the current version's Expiration is due. In an unversioned bucket the caller
 *   deletes it; with versioning Enabled it adds a delete marker; Suspended, it adds a `null` delete
 *   marker (removing a `null` current version). Never for a current delete marker.
 * - `delete-noncurrent`: permanently delete this noncurrent version (NoncurrentVersionExpiration).
 * - `remove-expired-delete-marker`: remove a current delete marker that is the key's only version.
 */
export type ExpirationAction = 'expire-current' | 'delete-noncurrent' | 'remove-expired-delete-marker';

function expirationDue(rule: LifecycleRule, since: Date): Date | undefined {
  const exp = rule.expiration;
  if (exp?.days !== undefined) return lifecycleDueDate(since, exp.days);
  if (exp?.date !== undefined) return parseIso8601(exp.date);
  return undefined;
}

const reached = (due: Date | undefined, now: Date): boolean => due !== undefined && now.getTime() >= due.getTime();

/** True when at least `keep` newer noncurrent versions exist (no limit when undefined). */
const exceedsNewer = (version: LifecycleVersion, keep: number | undefined): boolean =>
  keep === undefined || version.newerNoncurrentCount >= keep;

/**
 * The expiration action due for one version at `now`, or undefined. Disabled and non-matching rules are
 * ignored. A date already past makes every matching version eligible, every day (not a one-time action).
 * An expired delete marker goes by ExpiredObjectDeleteMarker or, as S3 does, once an Expiration's Days
 * have passed since the marker was created; only when it is the key's only version.
 */
export function expirationAction(rules: Rules, version: LifecycleVersion, now: Date): ExpirationAction | undefined {
  for (const rule of rules) {
    if (!ruleMatches(rule, version)) continue;
    if (!version.isLatest) {
      const nve = rule.noncurrentVersionExpiration;
      if (nve === undefined || version.noncurrentSince === undefined) continue;
      const due = lifecycleDueDate(version.noncurrentSince, nve.noncurrentDays);
      if (reached(due, now) && exceedsNewer(version, nve.newerNoncurrentVersions)) return 'delete-noncurrent';
    } else if (version.isDeleteMarker) {
      if (!version.isOnlyVersion) continue;
      const exp = rule.expiration;
      const byDays = exp?.days !== undefined && reached(lifecycleDueDate(version.lastModified, exp.days), now);
      if (exp?.expiredObjectDeleteMarker === true || byDays) return 'remove-expired-delete-marker';
    } else if (reached(expirationDue(rule, version.lastModified), now)) {
      return 'expire-current';
    }
  }
  return undefined;
}

export interface ScheduledAction {
  date: Date;
  ruleId: string;
}

/**
 * The earliest Expiration scheduled for a current version, for the x-amz-expiration header
 * (`expiry-date="<HTTP date>", rule-id="<id>"`): "the shorter expiration policy is honored".
 */
export function currentExpiry(
  rules: Rules,
  version: LifecycleSubject & { lastModified: Date },
): ScheduledAction | undefined {
  let best: ScheduledAction | undefined;
  for (const rule of rules) {
    if (!ruleMatches(rule, version)) continue;
    const due = expirationDue(rule, version.lastModified);
    if (due !== undefined && (best === undefined || due < best.date)) best = { date: due, ruleId: rule.id ?? '' };
  }
  return best;
}

export interface LifecycleUpload {
  key: string;
  initiated: Date;
}

/**
 * The earliest AbortIncompleteMultipartUpload date for an upload, for the x-amz-abort-date and
 * x-amz-abort-rule-id headers. Only the prefix matters: such rules cannot have tag or size filters.
 */
export function uploadAbortDate(rules: Rules, upload: LifecycleUpload): ScheduledAction | undefined {
  let best: ScheduledAction | undefined;
  for (const rule of rules) {
    const abort = rule.abortIncompleteMultipartUpload;
    if (abort === undefined || rule.status !== 'Enabled' || !upload.key.startsWith(rulePrefix(rule))) continue;
    const due = lifecycleDueDate(upload.initiated, abort.daysAfterInitiation);
    if (best === undefined || due < best.date) best = { date: due, ruleId: rule.id ?? '' };
  }
  return best;
}

/** True when an incomplete multipart upload is due to be aborted at `now`. */
export function abortUploadDue(rules: Rules, upload: LifecycleUpload, now: Date): boolean {
  return reached(uploadAbortDate(rules, upload)?.date, now);
}

const CLASS_RANK: Record<string, number> = { STANDARD: 0, STANDARD_IA: 1, GLACIER: 2, DEEP_ARCHIVE: 3 };
/** Since September 2024 S3 does not transition objects under 128 KiB unless a rule filters by size. */
export const MIN_TRANSITION_SIZE = 128 * 1024;

/**
 * The storage class a version should move to at `now`: the coldest transition due among matching
 * rules (Transition for the current version, NoncurrentVersionTransition for noncurrent ones), or
 * undefined when none is due, the version is already there or colder, or it is a delete marker.
 * Callers run expirationAction first: permanent deletion takes precedence over transition.
 */
export function transitionDue(rules: Rules, version: LifecycleVersion, now: Date): LifecycleStorageClass | undefined {
  if (version.isDeleteMarker) return undefined;
  let target: LifecycleStorageClass | undefined;
  const consider = (storageClass: LifecycleStorageClass, due: Date | undefined): void => {
    if (reached(due, now) && (target === undefined || rank(storageClass) > rank(target))) target = storageClass;
  };
  for (const rule of rules) {
    if (!ruleMatches(rule, version)) continue;
    const sizeFiltered =
      rule.filter?.objectSizeGreaterThan !== undefined || rule.filter?.objectSizeLessThan !== undefined;
    if (version.size < MIN_TRANSITION_SIZE && !sizeFiltered) continue;
    if (version.isLatest) {
      for (const t of rule.transitions ?? []) {
        const due = t.days !== undefined ? lifecycleDueDate(version.lastModified, t.days) : parseIso8601(t.date ?? '');
        consider(t.storageClass, due);
      }
    } else if (version.noncurrentSince !== undefined) {
      for (const t of rule.noncurrentVersionTransitions ?? []) {
        if (!exceedsNewer(version, t.newerNoncurrentVersions)) continue;
        consider(t.storageClass, lifecycleDueDate(version.noncurrentSince, t.noncurrentDays));
      }
    }
  }
  if (target === undefined || rank(version.storageClass ?? 'STANDARD') >= rank(target)) return undefined;
  return target;
}

function rank(storageClass: string): number {
  return CLASS_RANK[storageClass] ?? 0;
}
