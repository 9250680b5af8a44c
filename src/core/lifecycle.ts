// The bucket lifecycle configuration model and its validation, with S3's error codes and messages.
// Evaluation (which action is due for a version or an upload) is in lifecycle-eval.ts.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_LifecycleRule.html and
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html

import { uuidv7 } from '../lib/ids.js';
import { AppError, type ErrorCode } from './errors.js';
import { isMidnightUtc, parseIso8601 } from './iso8601.js';
import { type Tag, validateTag } from './tagging.js';

/** The transition targets Store accepts; the tiering worker acts on them. */
export const LIFECYCLE_STORAGE_CLASSES = ['STANDARD_IA', 'GLACIER', 'DEEP_ARCHIVE'] as const;
export type LifecycleStorageClass = (typeof LIFECYCLE_STORAGE_CLASSES)[number];
/** Transition targets S3 defines that Store does not offer: InvalidStorageClass, not MalformedXML. */
export const UNSUPPORTED_TRANSITION_CLASSES: readonly string[] = ['ONEZONE_IA', 'INTELLIGENT_TIERING', 'GLACIER_IR'];

export const MAX_LIFECYCLE_RULES = 1000;
export const MAX_RULE_ID_LENGTH = 255;
export const MAX_NEWER_NONCURRENT_VERSIONS = 100;
/** S3's bound on the size filters: "'ObjectSizeLessThan' should be between 1 and 1099511627776000." */
export const MAX_FILTER_OBJECT_SIZE = 1_099_511_627_776_000;
/** STANDARD_IA (like ONEZONE_IA) needs objects at least 30 days old, and 30 days there before colder classes. */
export const MIN_STANDARD_IA_DAYS = 30;

/** A V2 filter: every predicate present must hold (a prefix, all tags, the exclusive size bounds). */
export interface LifecycleFilter {
  prefix?: string;
  tags?: Tag[];
  objectSizeGreaterThan?: number;
  objectSizeLessThan?: number;
}

export interface LifecycleExpiration {
  days?: number;
  /** ISO 8601 string at midnight UTC. */
  date?: string;
  expiredObjectDeleteMarker?: boolean;
}

export interface LifecycleTransition {
  days?: number;
  date?: string;
  storageClass: LifecycleStorageClass;
}

export interface NoncurrentVersionExpiration {
  noncurrentDays: number;
  newerNoncurrentVersions?: number;
}

export interface NoncurrentVersionTransition {
  noncurrentDays: number;
  newerNoncurrentVersions?: number;
  storageClass: LifecycleStorageClass;
}

export interface LifecycleRule {
  /** Up to 255 characters; assigned by withRuleIds when a request leaves it out. */
  id?: string;
  status: 'Enabled' | 'Disabled';
  /** The deprecated rule-level Prefix (lifecycle "V1"). Exactly one of prefix and filter. */
  prefix?: string;
  filter?: LifecycleFilter;
  expiration?: LifecycleExpiration;
  transitions?: LifecycleTransition[];
  noncurrentVersionExpiration?: NoncurrentVersionExpiration;
  noncurrentVersionTransitions?: NoncurrentVersionTransition[];
  abortIncompleteMultipartUpload?: { daysAfterInitiation: number };
}

/** Plain data: JSON.stringify and JSON.parse round-trip it. */
export interface LifecycleConfiguration {
  rules: LifecycleRule[];
}

/** The key prefix a rule applies to ('' for every key). */
export function rulePrefix(rule: LifecycleRule): string {
  return rule.prefix ?? rule.filter?.prefix ?? '';
}

/** Fills in missing rule IDs the way S3 makes them: base64 of a UUID, 48 characters. */
export function withRuleIds(
  config: LifecycleConfiguration,
  newId: () => string = defaultRuleId,
): LifecycleConfiguration {
  return { rules: config.rules.map((rule) => (rule.id === undefined ? { ...rule, id: newId() } : rule)) };
}

function defaultRuleId(): string {
  return Buffer.from(uuidv7(), 'utf8').toString('base64');
}

function fail(code: ErrorCode, message: string): never {
  throw new AppError(code, { message });
}

const isInt = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n);
/**
 * A day count is an xs:int in S3's schema. The admin API's JSON could carry larger integers, which the S3 plane would
 * then serve in a document no S3 client (nor this parser) accepts back: both planes refuse them here.
 */
const isDayCount = (n: unknown): n is number => isInt(n) && n <= 2_147_483_647;

/**
 * Checks a configuration as S3 does, first fault first. Codes: InvalidRequest (rule count, no action,
 * V1 and V2 rules mixed, tag or size filters with AbortIncompleteMultipartUpload or
 * ExpiredObjectDeleteMarker, duplicate filter tags, size bounds, mixed Date and Days); InvalidArgument
 * (ID length or reuse, day counts, dates not at midnight, transition ordering, repeated storage class);
 * MalformedXML (Status, Filter/Prefix presence, empty or contradictory actions, unknown storage class);
 * InvalidStorageClass (ONEZONE_IA, INTELLIGENT_TIERING, GLACIER_IR); InvalidTag (a filter tag).
 */
export function validateLifecycleConfiguration(config: LifecycleConfiguration): void {
  const { rules } = config;
  if (rules.length === 0) fail('InvalidRequest', 'At least one lifecycle rule must be specified.');
  if (rules.length > MAX_LIFECYCLE_RULES) {
    fail('InvalidRequest', 'The number of lifecycle rules must not exceed the allowed limit of 1000 rules.');
  }
  const ids = new Set<string>();
  for (const rule of rules) {
    if (rule.id === undefined) continue;
    if (typeof rule.id !== 'string' || rule.id === '') fail('InvalidArgument', 'ID must be a non-empty string');
    if (rule.id.length > MAX_RULE_ID_LENGTH) {
      fail('InvalidArgument', 'ID length should not exceed allowed limit of 255');
    }
    if (ids.has(rule.id)) fail('InvalidArgument', 'Rule ID must be unique. Found same ID for more than one rule');
    ids.add(rule.id);
  }
  const firstIsV1 = rules[0]?.prefix !== undefined;
  for (const rule of rules) {
    validateRule(rule);
    if (firstIsV1 && rule.filter !== undefined) {
      fail('InvalidRequest', 'Filter element can only be used in Lifecycle V2.');
    }
    if (!firstIsV1 && rule.prefix !== undefined) {
      fail(
        'InvalidRequest',
        'Base level prefix cannot be used in Lifecycle V2, prefixes are only supported in the Filter.',
      );
    }
  }
}

function validateRule(rule: LifecycleRule): void {
  if (rule.status !== 'Enabled' && rule.status !== 'Disabled') {
    fail('MalformedXML', 'Status must be Enabled or Disabled.');
  }
  if ((rule.prefix === undefined) === (rule.filter === undefined)) {
    fail('MalformedXML', 'A rule needs exactly one of Filter and Prefix.');
  }
  const label = `(prefix=${rulePrefix(rule)})`;
  const filter = rule.filter ?? {};
  const hasTags = (filter.tags?.length ?? 0) > 0;
  const hasSize = filter.objectSizeGreaterThan !== undefined || filter.objectSizeLessThan !== undefined;
  validateFilter(filter);

  const actions = [
    rule.expiration,
    rule.noncurrentVersionExpiration,
    rule.abortIncompleteMultipartUpload,
    ...(rule.transitions ?? []),
    ...(rule.noncurrentVersionTransitions ?? []),
  ];
  if (actions.every((a) => a === undefined)) {
    fail('InvalidRequest', 'At least one action needs to be specified in a rule');
  }

  const { expiration, abortIncompleteMultipartUpload: abort } = rule;
  if (expiration !== undefined) validateExpiration(expiration);
  if (expiration?.expiredObjectDeleteMarker !== undefined) {
    if (hasTags) fail('InvalidRequest', 'ExpiredObjectDeleteMarker cannot be specified with Tags.');
    if (hasSize) fail('InvalidRequest', 'ExpiredObjectDeleteMarker cannot be specified with Object Size.');
  }
  if (abort !== undefined) {
    if (hasTags) fail('InvalidRequest', 'AbortIncompleteMultipartUpload cannot be specified with Tags.');
    if (hasSize) fail('InvalidRequest', 'AbortIncompleteMultipartUpload cannot be specified with Object Size.');
    if (!isDayCount(abort.daysAfterInitiation) || abort.daysAfterInitiation <= 0) {
      fail(
        'InvalidArgument',
        "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
      );
    }
  }
  validateTransitions(rule, label);
  validateNoncurrent(rule, label);
}

function validateFilter(filter: LifecycleFilter): void {
  if (filter.prefix !== undefined && typeof filter.prefix !== 'string') {
    fail('MalformedXML', 'Prefix must be a string.');
  }
  const keys = new Set<string>();
  for (const tag of filter.tags ?? []) {
    validateTag(tag);
    if (keys.has(tag.key)) fail('InvalidRequest', 'Duplicate Tag Keys are not allowed.');
    keys.add(tag.key);
  }
  const { objectSizeGreaterThan: gt, objectSizeLessThan: lt } = filter;
  if (gt !== undefined && (!isInt(gt) || gt < 0 || gt > MAX_FILTER_OBJECT_SIZE)) {
    fail('InvalidRequest', `'ObjectSizeGreaterThan' should be between 0 and ${MAX_FILTER_OBJECT_SIZE}.`);
  }
  if (lt !== undefined && (!isInt(lt) || lt < 1 || lt > MAX_FILTER_OBJECT_SIZE)) {
    fail('InvalidRequest', `'ObjectSizeLessThan' should be between 1 and ${MAX_FILTER_OBJECT_SIZE}.`);
  }
  if (gt !== undefined && lt !== undefined && lt <= gt) {
    fail('InvalidRequest', "'ObjectSizeLessThan' has to be a value greater than 'ObjectSizeGreaterThan'.");
  }
}

function validateMidnight(date: string): void {
  const parsed = parseIso8601(date);
  if (parsed === undefined) fail('MalformedXML', 'Date must be an ISO 8601 timestamp.');
  if (!isMidnightUtc(parsed)) fail('InvalidArgument', "'Date' must be at midnight GMT");
}

function validateExpiration(expiration: LifecycleExpiration): void {
  const { days, date, expiredObjectDeleteMarker: marker } = expiration;
  if (days === undefined && date === undefined && marker === undefined) {
    fail('MalformedXML', 'Expiration needs Days, Date or ExpiredObjectDeleteMarker.');
  }
  if (days !== undefined && date !== undefined) fail('MalformedXML', 'Expiration takes Days or Date, not both.');
  if (marker !== undefined && (days !== undefined || date !== undefined)) {
    fail(
      'MalformedXML',
      'ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy.',
    );
  }
  if (days !== undefined && (!isDayCount(days) || days <= 0)) {
    fail('InvalidArgument', "'Days' for Expiration action must be a positive integer");
  }
  if (date !== undefined) validateMidnight(date);
}

/**
 * Reads a transition's StorageClass. Throws AppError InvalidStorageClass for a class S3 defines but
 * Store does not offer, MalformedXML for any other unknown value (S3's schema enumeration).
 */
export function parseLifecycleStorageClass(storageClass: string): LifecycleStorageClass {
  const found = LIFECYCLE_STORAGE_CLASSES.find((c) => c === storageClass);
  if (found !== undefined) return found;
  if (UNSUPPORTED_TRANSITION_CLASSES.includes(storageClass)) {
    fail(
      'InvalidStorageClass',
      `Lifecycle transitions to ${storageClass} are not supported; use STANDARD_IA, GLACIER or DEEP_ARCHIVE.`,
    );
  }
  fail('MalformedXML', `Unknown StorageClass ${storageClass}.`);
}

const COLDER_THAN_IA = new Set<string>(['GLACIER', 'DEEP_ARCHIVE']);

function validateTransitions(rule: LifecycleRule, label: string): void {
  const transitions = rule.transitions ?? [];
  const seen = new Set<string>();
  for (const t of transitions) {
    if ((t.days === undefined) === (t.date === undefined)) {
      fail('MalformedXML', 'A Transition needs exactly one of Days and Date.');
    }
    parseLifecycleStorageClass(t.storageClass);
    if (t.days !== undefined) {
      if (!isDayCount(t.days) || t.days < 0) fail('InvalidArgument', "'Days' in Transition action must be nonnegative");
      if (t.storageClass === 'STANDARD_IA' && t.days < MIN_STANDARD_IA_DAYS) {
        fail(
          'InvalidArgument',
          "'Days' in Transition action must be greater than or equal to 30 for storageClass 'STANDARD_IA'",
        );
      }
    }
    if (t.date !== undefined) validateMidnight(t.date);
    if (seen.has(t.storageClass)) {
      fail(
        'InvalidArgument',
        `'StorageClass' must be different for 'Transition' actions in same 'Rule' with filter '${label}'`,
      );
    }
    seen.add(t.storageClass);
  }
  const exp = rule.expiration;
  const usesDays = transitions.some((t) => t.days !== undefined) || exp?.days !== undefined;
  const usesDates = transitions.some((t) => t.date !== undefined) || exp?.date !== undefined;
  if (usesDays && usesDates) {
    fail(
      'InvalidRequest',
      `Found mixed 'Date' and 'Days' based Expiration and Transition actions in lifecycle rule for filter '${label}'`,
    );
  }
  const ia = transitions.find((t) => t.storageClass === 'STANDARD_IA');
  for (const t of transitions) {
    if (exp?.days !== undefined && t.days !== undefined && exp.days <= t.days) {
      fail(
        'InvalidArgument',
        `'Days' in the Expiration action for filter '${label}' must be greater than 'Days' in the Transition action`,
      );
    }
    if (exp?.date !== undefined && t.date !== undefined && Date.parse(exp.date) <= Date.parse(t.date)) {
      fail(
        'InvalidArgument',
        `'Date' in the Expiration action for filter '${label}' must be later than 'Date' in the Transition action`,
      );
    }
    const tooSoonAfterIa = ia?.days !== undefined && t.days !== undefined && t.days < ia.days + MIN_STANDARD_IA_DAYS;
    if (tooSoonAfterIa && COLDER_THAN_IA.has(t.storageClass)) {
      fail(
        'InvalidArgument',
        `'Days' in the Transition action for StorageClass '${t.storageClass}' for filter '${label}' must be 30 days more than 'Days' in the Transition action for StorageClass 'STANDARD_IA'`,
      );
    }
  }
}

function validateNewer(value: number | undefined, action: string, rule: LifecycleRule): void {
  if (value === undefined) return;
  if (rule.prefix !== undefined) {
    fail('InvalidRequest', 'NewerNoncurrentVersions element can only be used in Lifecycle V2.');
  }
  if (!isInt(value) || value <= 0 || value > MAX_NEWER_NONCURRENT_VERSIONS) {
    fail('InvalidArgument', `'NewerNoncurrentVersions' for ${action} action must be a positive integer up to 100`);
  }
}

function validateNoncurrent(rule: LifecycleRule, label: string): void {
  const nve = rule.noncurrentVersionExpiration;
  if (nve !== undefined) {
    if (!isDayCount(nve.noncurrentDays) || nve.noncurrentDays <= 0) {
      fail('InvalidArgument', "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer");
    }
    validateNewer(nve.newerNoncurrentVersions, 'NoncurrentVersionExpiration', rule);
  }
  const seen = new Set<string>();
  for (const t of rule.noncurrentVersionTransitions ?? []) {
    parseLifecycleStorageClass(t.storageClass);
    if (!isDayCount(t.noncurrentDays) || t.noncurrentDays < 0) {
      fail('InvalidArgument', "'NoncurrentDays' in NoncurrentVersionTransition action must be nonnegative");
    }
    if (t.storageClass === 'STANDARD_IA' && t.noncurrentDays < MIN_STANDARD_IA_DAYS) {
      fail(
        'InvalidArgument',
        "'NoncurrentDays' in NoncurrentVersionTransition action must be greater than or equal to 30 for storageClass 'STANDARD_IA'",
      );
    }
    validateNewer(t.newerNoncurrentVersions, 'NoncurrentVersionTransition', rule);
    if (seen.has(t.storageClass)) {
      fail(
        'InvalidArgument',
        `'StorageClass' must be different for 'NoncurrentVersionTransition' actions in same 'Rule' with filter '${label}'`,
      );
    }
    seen.add(t.storageClass);
    if (nve !== undefined && nve.noncurrentDays <= t.noncurrentDays) {
      fail(
        'InvalidArgument',
        `'NoncurrentDays' in the NoncurrentVersionExpiration action for filter '${label}' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action`,
      );
    }
  }
}
