import { describe, expect, it } from 'vitest';
import { parseQuery, resolveEndpoint, resolveResource } from './endpoints.js';
import { codeOf } from '../../../test/helpers/error-code.js';

const resolve = (method: string, url: string, copy = false) => {
  const q = url.indexOf('?');
  return resolveEndpoint(
    { method, path: q < 0 ? url : url.slice(0, q), query: parseQuery(q < 0 ? '' : url.slice(q + 1)) },
    { hasCopySource: copy },
  );
};

describe('resolveEndpoint', () => {
  it('routes the service, bucket and object operations', () => {
    expect(resolve('GET', '/')).toEqual({ op: 'ListBuckets' });
    expect(resolve('PUT', '/b')).toEqual({ op: 'CreateBucket', bucket: 'b' });
    expect(resolve('PUT', '/b/')).toEqual({ op: 'CreateBucket', bucket: 'b' });
    expect(resolve('HEAD', '/b')).toEqual({ op: 'HeadBucket', bucket: 'b' });
    expect(resolve('DELETE', '/b')).toEqual({ op: 'DeleteBucket', bucket: 'b' });
    expect(resolve('GET', '/b?location')).toEqual({ op: 'GetBucketLocation', bucket: 'b' });
    expect(resolve('GET', '/b?list-type=2&prefix=a')).toEqual({ op: 'ListObjectsV2', bucket: 'b' });
    expect(resolve('GET', '/b?prefix=a')).toEqual({ op: 'ListObjects', bucket: 'b' });
    expect(resolve('GET', '/b?uploads')).toEqual({ op: 'ListMultipartUploads', bucket: 'b' });
    expect(resolve('POST', '/b?delete')).toEqual({ op: 'DeleteObjects', bucket: 'b' });
    expect(resolve('PUT', '/b/k')).toEqual({ op: 'PutObject', bucket: 'b', key: 'k' });
    expect(resolve('PUT', '/b/k', true)).toEqual({ op: 'CopyObject', bucket: 'b', key: 'k' });
    expect(resolve('PUT', '/b/k?partNumber=1&uploadId=u')).toEqual({ op: 'UploadPart', bucket: 'b', key: 'k' });
    expect(resolve('PUT', '/b/k?partNumber=1&uploadId=u', true)).toEqual({
      op: 'UploadPartCopy',
      bucket: 'b',
      key: 'k',
    });
    expect(resolve('GET', '/b/k')).toEqual({ op: 'GetObject', bucket: 'b', key: 'k' });
    expect(resolve('GET', '/b/k?uploadId=u')).toEqual({ op: 'ListParts', bucket: 'b', key: 'k' });
    expect(resolve('HEAD', '/b/k')).toEqual({ op: 'HeadObject', bucket: 'b', key: 'k' });
    expect(resolve('DELETE', '/b/k')).toEqual({ op: 'DeleteObject', bucket: 'b', key: 'k' });
    expect(resolve('DELETE', '/b/k?uploadId=u')).toEqual({ op: 'AbortMultipartUpload', bucket: 'b', key: 'k' });
    expect(resolve('POST', '/b/k?uploads')).toEqual({ op: 'CreateMultipartUpload', bucket: 'b', key: 'k' });
    expect(resolve('POST', '/b/k?uploadId=u')).toEqual({ op: 'CompleteMultipartUpload', bucket: 'b', key: 'k' });
  });

  it('decodes keys exactly: no normalisation of dots or slashes, + stays a plus', () => {
    expect(resolve('GET', '/b/a/../c')).toMatchObject({ key: 'a/../c' });
    expect(resolve('GET', '/b/a//c/')).toMatchObject({ key: 'a//c/' });
    expect(resolve('GET', '/b/a+b%20c%2Bd')).toMatchObject({ key: 'a+b c+d' });
    expect(resolve('GET', '/b/%E6%97%A5%E6%9C%AC')).toMatchObject({ key: '日本' });
    expect(resolve('GET', '/b//leading')).toMatchObject({ key: '/leading' });
  });

  it('decodes query values with + as space, keeping the first of repeated names', () => {
    const q = parseQuery('prefix=a+b%2Fc&delimiter=%2F&prefix=ignored&flag');
    expect(q.get('prefix')).toBe('a b/c');
    expect(q.get('delimiter')).toBe('/');
    expect(q.get('flag')).toBe('');
  });

  it('routes bucket and object subresources to their operations by method', () => {
    expect(resolve('GET', '/b?versioning')).toEqual({ op: 'GetBucketVersioning', bucket: 'b' });
    expect(resolve('PUT', '/b?versioning')).toEqual({ op: 'PutBucketVersioning', bucket: 'b' });
    expect(resolve('GET', '/b?versions&prefix=a')).toEqual({ op: 'ListObjectVersions', bucket: 'b' });
    expect(resolve('DELETE', '/b?lifecycle')).toEqual({ op: 'DeleteBucketLifecycle', bucket: 'b' });
    expect(resolve('GET', '/b?policyStatus')).toEqual({ op: 'GetBucketPolicyStatus', bucket: 'b' });
    expect(resolve('PUT', '/b?object-lock')).toEqual({ op: 'PutObjectLockConfiguration', bucket: 'b' });
    expect(resolve('POST', '/b')).toEqual({ op: 'PostObject', bucket: 'b' });
    expect(resolve('PUT', '/b/k?tagging')).toEqual({ op: 'PutObjectTagging', bucket: 'b', key: 'k' });
    expect(resolve('GET', '/b/k?legal-hold')).toEqual({ op: 'GetObjectLegalHold', bucket: 'b', key: 'k' });
    expect(resolve('GET', '/b/k?attributes')).toEqual({ op: 'GetObjectAttributes', bucket: 'b', key: 'k' });
  });

  it('answers NotImplemented for subresources Store does not support, never a wrong success', () => {
    expect(resolve('GET', '/b?inventory')).toMatchObject({ op: 'NotImplemented' });
    expect(resolve('PUT', '/b?replication')).toMatchObject({ op: 'NotImplemented' });
    expect(resolve('PUT', '/b?website')).toMatchObject({ op: 'NotImplemented' });
    expect(resolve('POST', '/b/k?select')).toMatchObject({ op: 'NotImplemented' });
  });

  it("resolves the reads of features Store never configures to AWS's defaults", () => {
    expect(resolve('GET', '/b?website')).toEqual({ op: 'GetBucketWebsite', bucket: 'b' });
    expect(resolve('DELETE', '/b?replication')).toEqual({ op: 'DeleteBucketReplication', bucket: 'b' });
    expect(resolve('PUT', '/b?requestPayment')).toEqual({ op: 'PutBucketRequestPayment', bucket: 'b' });
    expect(resolve('GET', '/b?accelerate')).toEqual({ op: 'GetBucketAccelerateConfiguration', bucket: 'b' });
    expect(() => resolve('POST', '/b?logging')).toThrow();
  });

  it('resolves RestoreObject (POST ?restore; other methods are refused)', () => {
    expect(resolve('POST', '/b/k?restore')).toEqual({ op: 'RestoreObject', bucket: 'b', key: 'k' });
    expect(() => resolve('GET', '/b/k?restore')).toThrow();
  });

  it('refuses a method a subresource does not have', () => {
    expect(codeOf(() => resolve('DELETE', '/b?versioning'))).toBe('MethodNotAllowed');
    expect(codeOf(() => resolve('POST', '/b/k?attributes'))).toBe('MethodNotAllowed');
  });

  it('refuses undecodable paths and unsupported methods with S3 errors', () => {
    expect(codeOf(() => resolve('GET', '/b/%E0%A4%A'))).toBe('InvalidURI');
    expect(codeOf(() => resolve('GET', '/b/%FF'))).toBe('InvalidURI');
    expect(codeOf(() => parseQuery('prefix=%zz'))).toBe('InvalidURI');
    expect(codeOf(() => resolve('PATCH', '/b/k'))).toBe('MethodNotAllowed');
    expect(codeOf(() => resolve('POST', '/b/k'))).toBe('MethodNotAllowed');
    expect(codeOf(() => resolve('PUT', '/'))).toBe('MethodNotAllowed');
  });
});

describe('resolveEndpoint, virtual-hosted style (the bucket from the Host)', () => {
  const hosted = (
    method: string,
    url: string,
    { hostBucket, copy = false }: { hostBucket: string; copy?: boolean },
  ) => {
    const q = url.indexOf('?');
    return resolveEndpoint(
      { method, path: q < 0 ? url : url.slice(0, q), query: parseQuery(q < 0 ? '' : url.slice(q + 1)) },
      { hostBucket, hasCopySource: copy },
    );
  };

  it('routes bucket operations at / and object operations at /key', () => {
    expect(hosted('GET', '/', { hostBucket: 'b' })).toEqual({ op: 'ListObjects', bucket: 'b' });
    expect(hosted('GET', '/?list-type=2', { hostBucket: 'b' })).toEqual({ op: 'ListObjectsV2', bucket: 'b' });
    expect(hosted('PUT', '/', { hostBucket: 'b' })).toEqual({ op: 'CreateBucket', bucket: 'b' });
    expect(hosted('POST', '/', { hostBucket: 'b' })).toEqual({ op: 'PostObject', bucket: 'b' });
    expect(hosted('POST', '/?delete', { hostBucket: 'b' })).toEqual({ op: 'DeleteObjects', bucket: 'b' });
    expect(hosted('GET', '/?versioning', { hostBucket: 'my.bucket' })).toEqual({
      op: 'GetBucketVersioning',
      bucket: 'my.bucket',
    });
    expect(hosted('PUT', '/k', { hostBucket: 'b' })).toEqual({ op: 'PutObject', bucket: 'b', key: 'k' });
    expect(hosted('PUT', '/k', { hostBucket: 'b', copy: true })).toEqual({ op: 'CopyObject', bucket: 'b', key: 'k' });
    expect(hosted('POST', '/dir/k?uploadId=u', { hostBucket: 'b' })).toEqual({
      op: 'CompleteMultipartUpload',
      bucket: 'b',
      key: 'dir/k',
    });
  });

  it('takes the whole path as the key: a bucket-looking first segment is part of it, // keeps its slash', () => {
    expect(hosted('GET', '/b/k', { hostBucket: 'other' })).toEqual({ op: 'GetObject', bucket: 'other', key: 'b/k' });
    expect(hosted('GET', '//a', { hostBucket: 'b' })).toEqual({ op: 'GetObject', bucket: 'b', key: '/a' });
    expect(hosted('GET', '/a%20b%2Fc', { hostBucket: 'b' })).toEqual({ op: 'GetObject', bucket: 'b', key: 'a b/c' });
    expect(resolveResource('/x/y', 'b')).toEqual({ bucket: 'b', key: 'x/y' });
    expect(resolveResource('/', 'b')).toEqual({ bucket: 'b', key: '' });
  });
});
