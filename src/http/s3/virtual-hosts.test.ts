import { describe, expect, it } from 'vitest';
import { VirtualHosts } from './virtual-hosts.js';

describe('VirtualHosts.bucketOf', () => {
  const hosts = new VirtualHosts(['example.com', 's3.example.com', 'localhost']);

  it('takes the bucket from <bucket>.<domain>, ignoring the port, letter case and a final dot', () => {
    expect(hosts.bucketOf('photos.example.com')).toBe('photos');
    expect(hosts.bucketOf('photos.example.com:9000')).toBe('photos');
    expect(hosts.bucketOf('Photos.EXAMPLE.com')).toBe('photos');
    expect(hosts.bucketOf('photos.example.com.:9000')).toBe('photos');
    expect(hosts.bucketOf('photos.localhost:9000')).toBe('photos');
  });

  it('keeps the dots of a bucket name, and prefers the longest domain', () => {
    expect(hosts.bucketOf('my.bucket.example.com')).toBe('my.bucket');
    expect(hosts.bucketOf('b.s3.example.com')).toBe('b');
  });

  it('is path-style (undefined) for a domain itself, another name, an IP address or no Host', () => {
    expect(hosts.bucketOf('example.com')).toBeUndefined();
    expect(hosts.bucketOf('s3.example.com:443')).toBeUndefined();
    expect(hosts.bucketOf('notexample.com')).toBeUndefined();
    expect(hosts.bucketOf('.example.com')).toBeUndefined();
    expect(hosts.bucketOf('example.com.evil.net')).toBeUndefined();
    expect(hosts.bucketOf('127.0.0.1:9000')).toBeUndefined();
    expect(hosts.bucketOf('[::1]:9000')).toBeUndefined();
    expect(hosts.bucketOf(undefined)).toBeUndefined();
  });

  it('is off without domains', () => {
    const off = new VirtualHosts([]);
    expect(off.isEnabled).toBe(false);
    expect(off.bucketOf('photos.example.com')).toBeUndefined();
  });
});
