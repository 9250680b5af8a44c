import { describe, expect, it } from 'vitest';
import { isObjectEventType, objectEvent, serializeEvent, type ObjectEvent } from './object-event.js';

const change = {
  bucket: 'b',
  key: 'k/ü "q"',
  size: 42,
  etag: 'abc',
  versionId: '0190-v',
  time: Date.UTC(2025, 0, 2, 3, 4, 5, 6),
};

describe('objectEvent', () => {
  it('carries versionId only for a versioning-Enabled bucket', () => {
    expect(objectEvent('object.created', change, 'Enabled').versionId).toBe('0190-v');
    expect('versionId' in objectEvent('object.created', change, 'Suspended')).toBe(false);
    expect('versionId' in objectEvent('object.created', change, 'Unversioned')).toBe(false);
  });

  it('reports size 0 for a delete and keeps the other fields of the committed change', () => {
    const e = objectEvent('object.deleted', change, 'Enabled');
    expect(e).toEqual({
      type: 'object.deleted',
      bucket: 'b',
      key: 'k/ü "q"',
      size: 0,
      etag: 'abc',
      versionId: '0190-v',
      eventTime: '2025-01-02T03:04:05.006Z',
    });
    expect(objectEvent('multipart.completed', change, 'Unversioned').size).toBe(42);
  });
});

describe('serializeEvent', () => {
  it('writes the fields in the spec order whatever order the object has', () => {
    const scrambled = {
      eventTime: '2025-01-02T03:04:05.006Z',
      versionId: 'v1',
      etag: 'e',
      size: 1,
      key: 'k',
      bucket: 'b',
      type: 'object.created',
    } as ObjectEvent;
    expect(serializeEvent(scrambled)).toBe(
      '{"type":"object.created","bucket":"b","key":"k","size":1,"etag":"e","versionId":"v1","eventTime":"2025-01-02T03:04:05.006Z"}',
    );
  });

  it('omits versionId entirely when absent and escapes keys as JSON', () => {
    const text = serializeEvent(objectEvent('object.created', change, 'Unversioned'));
    expect(text).toBe(
      '{"type":"object.created","bucket":"b","key":"k/ü \\"q\\"","size":42,"etag":"abc","eventTime":"2025-01-02T03:04:05.006Z"}',
    );
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['type', 'bucket', 'key', 'size', 'etag', 'eventTime']);
  });

  it('drops any extra field a caller smuggled onto the object', () => {
    const withExtra = { ...objectEvent('object.created', change, 'Unversioned'), clientIp: '10.0.0.1' } as ObjectEvent;
    expect(serializeEvent(withExtra)).not.toContain('clientIp');
  });
});

describe('isObjectEventType', () => {
  it('accepts exactly the three names', () => {
    expect(['object.created', 'object.deleted', 'multipart.completed'].every(isObjectEventType)).toBe(true);
    expect(['object.Created', 'object.*', '', 'ObjectCreated:Put'].some(isObjectEventType)).toBe(false);
  });
});
