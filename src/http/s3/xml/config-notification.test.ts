import { describe, expect, it } from 'vitest';
import { AppError } from '../../../core/errors.js';
import { buildNotificationConfiguration, parseNotificationConfiguration } from './config-notification.js';

const ARN = 'arn:store:sqs:us-east-1:orders:webhook';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
}

describe('NotificationConfiguration XML', () => {
  it('parses Queue, Topic and CloudFunction configurations with filters, and builds them back', () => {
    const xml = `<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
      <QueueConfiguration><Id>q</Id><Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event>
        <Filter><S3Key><FilterRule><Name>Prefix</Name><Value>images/</Value></FilterRule>
        <FilterRule><Name>suffix</Name><Value>.jpg</Value></FilterRule></S3Key></Filter></QueueConfiguration>
      <TopicConfiguration><Id>t</Id><Topic>${ARN}</Topic><Event>s3:ObjectRemoved:Delete</Event>
        <Event>s3:ObjectTagging:*</Event></TopicConfiguration>
      <CloudFunctionConfiguration><CloudFunction>${ARN}</CloudFunction>
        <Event>s3:LifecycleExpiration:*</Event></CloudFunctionConfiguration>
    </NotificationConfiguration>`;
    const config = parseNotificationConfiguration(xml);
    expect(config.rules.map((r) => [r.kind, r.id.length > 0, r.events, r.prefix, r.suffix])).toEqual([
      ['Queue', true, ['s3:ObjectCreated:*'], 'images/', '.jpg'],
      ['Topic', true, ['s3:ObjectRemoved:Delete', 's3:ObjectTagging:*'], undefined, undefined],
      ['CloudFunction', true, ['s3:LifecycleExpiration:*'], undefined, undefined],
    ]);
    expect(parseNotificationConfiguration(buildNotificationConfiguration(config))).toEqual(config);
  });

  it('answers an empty document when nothing is set', () => {
    expect(buildNotificationConfiguration(undefined)).toContain('<NotificationConfiguration');
    expect(parseNotificationConfiguration('<NotificationConfiguration/>')).toEqual({ rules: [] });
  });

  it('refuses malformed documents and filter rules as AWS does', () => {
    const q = (inner: string) =>
      `<NotificationConfiguration><QueueConfiguration>${inner}</QueueConfiguration></NotificationConfiguration>`;
    expect(codeOf(() => parseNotificationConfiguration(''))).toBe('MissingRequestBodyError');
    expect(codeOf(() => parseNotificationConfiguration('<Nope/>'))).toBe('MalformedXML');
    expect(codeOf(() => parseNotificationConfiguration(q(`<Queue>${ARN}</Queue>`)))).toBe('MalformedXML');
    expect(codeOf(() => parseNotificationConfiguration(q('<Event>s3:ObjectCreated:*</Event>')))).toBe('MalformedXML');
    const rules = (r: string) =>
      q(`<Queue>${ARN}</Queue><Event>s3:ObjectCreated:*</Event><Filter><S3Key>${r}</S3Key></Filter>`);
    const fr = (name: string, value: string) => `<FilterRule><Name>${name}</Name><Value>${value}</Value></FilterRule>`;
    expect(codeOf(() => parseNotificationConfiguration(rules(fr('middle', 'x'))))).toBe('InvalidArgument');
    expect(codeOf(() => parseNotificationConfiguration(rules(fr('prefix', 'a') + fr('Prefix', 'b'))))).toBe(
      'InvalidArgument',
    );
    expect(
      codeOf(() =>
        parseNotificationConfiguration(
          '<NotificationConfiguration><EventBridgeConfiguration/></NotificationConfiguration>',
        ),
      ),
    ).toBe('NotImplemented');
  });
});
