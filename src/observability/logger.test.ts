// URLs reach the access log without any credential a client put in the query string.

import { describe, expect, it } from 'vitest';
import { safeUrl } from './logger.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl';

describe('safeUrl', () => {
  it('redacts S3 query authentication, SigV4 and SigV2', () => {
    expect(
      safeUrl(
        '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=abc',
      ),
    ).toBe(
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[redacted]&X-Amz-Date=[redacted]&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=[redacted]',
    );
    expect(safeUrl('/b/k?AWSAccessKeyId=AKID&Expires=1700000000&Signature=abc%2Bdef')).toBe(
      '/b/k?AWSAccessKeyId=[redacted]&Expires=1700000000&Signature=[redacted]',
    );
  });

  it.each([
    'access_token',
    'token',
    'id_token',
    'refreshToken',
    'api_key',
    'apikey',
    'API-KEY',
    'secret',
    'client_secret',
    'password',
    'pwd',
    'auth',
    'authorization',
    'session',
    'sessionid',
    'x-amz-security-token',
    'private_key',
    'jwt',
    'cookie',
    'access%5Ftoken',
  ])('redacts a credential-shaped parameter named %s, on any route', (name) => {
    expect(safeUrl(`/api/admin/buckets?${name}=hunter2-very-secret&limit=5`)).toBe(
      `/api/admin/buckets?${name}=[redacted]&limit=5`,
    );
  });

  it('redacts a JWT under any name, raw or percent-encoded', () => {
    expect(safeUrl(`/api/admin/keys?x=${JWT}`)).toBe('/api/admin/keys?x=[redacted]');
    expect(safeUrl(`/api/admin/keys?x=${JWT.replace(/\./g, '%2E')}`)).toBe('/api/admin/keys?x=[redacted]');
  });

  it('keeps everything else as sent: paths, ordinary parameters, S3 sub-resources, repeated and bare names', () => {
    for (const url of [
      '/',
      '/b/k',
      '/b?list-type=2&prefix=a%2Fb&max-keys=10',
      '/b?versions',
      '/b/k?uploadId=abc&partNumber=2',
      '/api/admin/objects/search?q=token%20report&key=readme',
    ]) {
      expect(safeUrl(url)).toBe(url);
    }
    expect(safeUrl('/b?token')).toBe('/b?token=[redacted]');
  });
});
