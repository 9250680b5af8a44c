// A bucket's notification configuration (docs/notifications.md "The S3 API"): which events, under which key prefix
// and suffix, go to which target ARN. Validation follows AWS's PutBucketNotificationConfiguration refusals; matching
// expands the `:*` wildcards. Pure: whether an ARN names an existing target is the notification service's check.

import { AppError } from './errors.js';

/** The concrete event names Store emits (AWS's "Supported event types"), each under its `:*` wildcard if it has one. */
export const NOTIFICATION_EVENT_NAMES = [
  's3:TestEvent',
  's3:ObjectCreated:Put',
  's3:ObjectCreated:Post',
  's3:ObjectCreated:Copy',
  's3:ObjectCreated:CompleteMultipartUpload',
  's3:ObjectRemoved:Delete',
  's3:ObjectRemoved:DeleteMarkerCreated',
  's3:ObjectTagging:Put',
  's3:ObjectTagging:Delete',
  's3:ObjectRestore:Post',
  's3:ObjectRestore:Completed',
  's3:LifecycleExpiration:Delete',
  's3:LifecycleExpiration:DeleteMarkerCreated',
  's3:LifecycleTransition',
] as const;
export type NotificationEventName = (typeof NOTIFICATION_EVENT_NAMES)[number];

const WILDCARDS = [
  's3:ObjectCreated:*',
  's3:ObjectRemoved:*',
  's3:ObjectTagging:*',
  's3:ObjectRestore:*',
  's3:LifecycleExpiration:*',
] as const;

/** What a configuration may name: a concrete event (not the test event, which is sent, never subscribed) or `:*`. */
export const CONFIGURABLE_EVENTS: readonly string[] = [
  ...NOTIFICATION_EVENT_NAMES.filter((n) => n !== 's3:TestEvent'),
  ...WILDCARDS,
];

/** Queue, Topic and CloudFunction configurations all route to a Store target by ARN; the kind is kept for GET. */
export type NotificationRuleKind = 'Queue' | 'Topic' | 'CloudFunction';

export interface NotificationRule {
  /** The configuration's Id (generated when the request has none, as AWS does). */
  id: string;
  kind: NotificationRuleKind;
  arn: string;
  /** As sent (concrete names or `:*` wildcards), at least one. */
  events: string[];
  prefix?: string;
  suffix?: string;
}

export interface NotificationConfiguration {
  rules: NotificationRule[];
}

/** `arn:store:sqs:<region>:<target id>:<kind>`: the shape of a target ARN (docs/notifications.md "Target ARNs"). */
export const TARGET_ARN = /^arn:store:sqs:([a-z0-9-]*):([A-Za-z0-9_-]{1,64}):([a-z]+)$/;

/** The target id an ARN names, or undefined for a string that is not a Store target ARN. */
export function targetIdOfArn(arn: string): string | undefined {
  return TARGET_ARN.exec(arn)?.[2];
}

/** True when a configured name (concrete or wildcard) covers the concrete `event`. */
export function eventMatches(configured: string, event: string): boolean {
  if (configured === event) return true;
  return configured.endsWith(':*') && event.startsWith(configured.slice(0, -1));
}

function invalidArgument(message: string, name: string, value: string): AppError {
  return new AppError('InvalidArgument', { message, details: { ArgumentName: name, ArgumentValue: value } });
}

/** Two event names (either possibly a wildcard) that some concrete event satisfies both of. */
function eventsOverlap(a: string, b: string): boolean {
  return NOTIFICATION_EVENT_NAMES.some((e) => eventMatches(a, e) && eventMatches(b, e));
}

/** Two rules whose filters some key satisfies both of: one prefix starts the other, and one suffix ends the other. */
function filtersOverlap(a: NotificationRule, b: NotificationRule): boolean {
  const p1 = a.prefix ?? '';
  const p2 = b.prefix ?? '';
  const s1 = a.suffix ?? '';
  const s2 = b.suffix ?? '';
  return (p1.startsWith(p2) || p2.startsWith(p1)) && (s1.endsWith(s2) || s2.endsWith(s1));
}

/**
 * Validates a configuration as AWS does: every event name known (InvalidArgument "The event is not supported for
 * notifications"), ARNs of Store's shape (InvalidArgument), Ids unique and at most 255 characters, prefixes and
 * suffixes at most 1024 bytes, and no two rules with overlapping events whose filters overlap (InvalidArgument
 * "Configuration is ambiguously defined..."). Rules that overlap but go to different targets are refused too, as AWS.
 */
export function validateNotificationConfiguration(config: NotificationConfiguration): void {
  const ids = new Set<string>();
  for (const rule of config.rules) {
    if (rule.id.length > 255) throw invalidArgument('The Id is longer than 255 characters.', 'Id', rule.id);
    if (ids.has(rule.id)) throw invalidArgument('Two configurations have the same Id.', 'Id', rule.id);
    ids.add(rule.id);
    if (rule.events.length === 0) throw new AppError('MalformedXML');
    for (const event of rule.events) {
      if (!CONFIGURABLE_EVENTS.includes(event)) {
        throw invalidArgument('The event is not supported for notifications', 'Event', event);
      }
    }
    if (targetIdOfArn(rule.arn) === undefined) {
      throw invalidArgument('Unable to validate the following destination configurations', rule.arn, 'Invalid ARN');
    }
    for (const value of [rule.prefix, rule.suffix]) {
      if (value !== undefined && Buffer.byteLength(value) > 1024) {
        throw invalidArgument('A filter rule value is longer than 1024 bytes.', 'FilterRule', value.slice(0, 64));
      }
    }
  }
  config.rules.forEach((a, i) => {
    for (const b of config.rules.slice(i + 1)) {
      const shared = a.events.some((x) => b.events.some((y) => eventsOverlap(x, y)));
      if (shared && filtersOverlap(a, b)) {
        throw invalidArgument(
          'Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes ' +
            'are overlapping for the same event type.',
          'Event',
          a.events.find((x) => b.events.some((y) => eventsOverlap(x, y))) ?? '',
        );
      }
    }
  });
}

/**
 * The rules that `event` on `key` matches, at most one per target ARN, in rule order. (Validation refuses overlapping
 * rules for one event, so at most one rule matches unless two configurations name the same key exactly differently.)
 */
export function matchingRules(
  config: NotificationConfiguration | undefined,
  event: string,
  key: string,
): NotificationRule[] {
  if (config === undefined) return [];
  const out: NotificationRule[] = [];
  for (const rule of config.rules) {
    if (!rule.events.some((e) => eventMatches(e, event))) continue;
    if (rule.prefix !== undefined && !key.startsWith(rule.prefix)) continue;
    if (rule.suffix !== undefined && !key.endsWith(rule.suffix)) continue;
    if (!out.some((r) => r.arn === rule.arn)) out.push(rule);
  }
  return out;
}
