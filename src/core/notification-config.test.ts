import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import {
  CONFIGURABLE_EVENTS,
  eventMatches,
  matchingRules,
  targetIdOfArn,
  validateNotificationConfiguration,
  type NotificationRule,
} from './notification-config.js';

const ARN = 'arn:store:sqs:us-east-1:orders:webhook';
const rule = (extra: Partial<NotificationRule>): NotificationRule => ({
  id: 'r',
  kind: 'Queue',
  arn: ARN,
  events: ['s3:ObjectCreated:*'],
  ...extra,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
}

describe('event names and wildcards', () => {
  it('matches a concrete name exactly and a :* wildcard by its family only', () => {
    expect(eventMatches('s3:ObjectCreated:*', 's3:ObjectCreated:CompleteMultipartUpload')).toBe(true);
    expect(eventMatches('s3:ObjectCreated:*', 's3:ObjectRemoved:Delete')).toBe(false);
    expect(eventMatches('s3:ObjectRemoved:Delete', 's3:ObjectRemoved:DeleteMarkerCreated')).toBe(false);
    expect(eventMatches('s3:LifecycleExpiration:*', 's3:LifecycleExpiration:DeleteMarkerCreated')).toBe(true);
    expect(eventMatches('s3:ObjectTagging:*', 's3:ObjectTagging:Delete')).toBe(true);
  });

  it('accepts every name and wildcard AWS lists, and refuses others and the test event', () => {
    for (const name of CONFIGURABLE_EVENTS) {
      expect(codeOf(() => validateNotificationConfiguration({ rules: [rule({ events: [name] })] }))).toBeUndefined();
    }
    for (const bad of [
      's3:ObjectCreated:Nope',
      's3:*',
      'ObjectCreated:Put',
      's3:TestEvent',
      's3:LifecycleTransition:*',
    ]) {
      expect(
        codeOf(() => validateNotificationConfiguration({ rules: [rule({ events: [bad] })] })),
        bad,
      ).toBe('InvalidArgument');
    }
  });
});

describe('validation', () => {
  it('refuses ARNs not of the target shape, duplicate Ids and long values', () => {
    expect(codeOf(() => validateNotificationConfiguration({ rules: [rule({ arn: 'arn:aws:sqs:x:1:q' })] }))).toBe(
      'InvalidArgument',
    );
    expect(
      codeOf(() =>
        validateNotificationConfiguration({
          rules: [rule({ prefix: 'a' }), rule({ prefix: 'b' })],
        }),
      ),
    ).toBe('InvalidArgument');
    expect(codeOf(() => validateNotificationConfiguration({ rules: [rule({ prefix: 'x'.repeat(1025) })] }))).toBe(
      'InvalidArgument',
    );
    expect(targetIdOfArn(ARN)).toBe('orders');
  });

  it('refuses overlapping prefix and suffix rules for a shared event, and allows disjoint ones', () => {
    const overlapping: [Partial<NotificationRule>, Partial<NotificationRule>][] = [
      [{}, {}],
      [{ prefix: 'a/' }, { prefix: 'a/b/' }],
      [{ suffix: '.jpg' }, { suffix: 'x.jpg' }],
      [{ prefix: 'a/', suffix: '.jpg' }, { suffix: '.jpg' }],
      [{ events: ['s3:ObjectCreated:Put'] }, { events: ['s3:ObjectCreated:*'] }],
    ];
    for (const [a, b] of overlapping) {
      const config = { rules: [rule({ id: 'a', ...a }), rule({ id: 'b', ...b })] };
      expect(
        codeOf(() => validateNotificationConfiguration(config)),
        JSON.stringify([a, b]),
      ).toBe('InvalidArgument');
    }
    const disjoint: [Partial<NotificationRule>, Partial<NotificationRule>][] = [
      [{ prefix: 'a/' }, { prefix: 'b/' }],
      [{ suffix: '.jpg' }, { suffix: '.png' }],
      [{ events: ['s3:ObjectCreated:*'] }, { events: ['s3:ObjectRemoved:*'] }],
      [{ events: ['s3:ObjectRemoved:Delete'] }, { events: ['s3:ObjectRemoved:DeleteMarkerCreated'] }],
    ];
    for (const [a, b] of disjoint) {
      const config = { rules: [rule({ id: 'a', ...a }), rule({ id: 'b', ...b })] };
      expect(
        codeOf(() => validateNotificationConfiguration(config)),
        JSON.stringify([a, b]),
      ).toBeUndefined();
    }
  });
});

describe('matchingRules', () => {
  const config = {
    rules: [
      rule({ id: 'img', prefix: 'images/', suffix: '.jpg' }),
      rule({ id: 'del', arn: 'arn:store:sqs:us-east-1:audit:redis', events: ['s3:ObjectRemoved:*'] }),
    ],
  };

  it('applies the event name, the prefix and the suffix', () => {
    expect(matchingRules(config, 's3:ObjectCreated:Put', 'images/cat.jpg').map((r) => r.id)).toEqual(['img']);
    expect(matchingRules(config, 's3:ObjectCreated:Put', 'images/cat.png')).toEqual([]);
    expect(matchingRules(config, 's3:ObjectCreated:Put', 'docs/cat.jpg')).toEqual([]);
    expect(matchingRules(config, 's3:ObjectRemoved:DeleteMarkerCreated', 'any').map((r) => r.id)).toEqual(['del']);
    expect(matchingRules(undefined, 's3:ObjectCreated:Put', 'k')).toEqual([]);
  });
});
