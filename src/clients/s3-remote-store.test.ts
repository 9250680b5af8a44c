// classifyRemoteError: every SDK or socket failure becomes a bounded class, and the message never carries what the
// SDK's did (an endpoint, a bucket, a key).

import { describe, expect, it } from 'vitest';
import { classifyRemoteError } from './s3-remote-store.js';

const sdk = (name: string, status?: number, message = 'https://AKIAEXAMPLE@s3.internal:9000/bucket/key failed'): Error =>
  Object.assign(new Error(message), { name, ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }) });

describe('classifyRemoteError', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:9000'), { code: 'ECONNREFUSED' }), 'unreachable'],
    [Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed'), {}), 'unreachable'],
    [sdk('TimeoutError'), 'timeout'],
    [sdk('AbortError'), 'aborted'],
    [sdk('NoSuchBucket', 404), 'no-bucket'],
    [sdk('NoSuchKey', 404), 'not-found'],
    [sdk('NotFound', 404), 'not-found'],
    [sdk('InvalidAccessKeyId', 403), 'auth'],
    [sdk('Unknown', 401), 'auth'],
    [sdk('SlowDown', 503), 'throttled'],
    [sdk('InternalError', 500), 'server-error'],
    [sdk('InvalidArgument', 400), 'client-error'],
    [new Error('something else'), 'unknown'],
  ])('maps %s to %s', (err, cls) => {
    const mapped = classifyRemoteError(err);
    expect(mapped.errorClass).toBe(cls);
    expect(mapped.message).not.toMatch(/AKIA|internal|bucket\/key|10\.1\.2\.3/);
  });
});
