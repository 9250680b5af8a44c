import { describe, expect, it } from 'vitest';
import { contentSafetyHeaders, mediaType } from './content-safety.js';

describe('contentSafetyHeaders', () => {
  it.each([
    'text/html', 'TEXT/HTML; charset=utf-8', ' text/html ', 'image/svg+xml', 'application/xhtml+xml', 'application/xml', 'text/xml',
    'application/rss+xml', 'text/javascript', 'application/octet-stream', 'binary/octet-stream', 'text/plain', 'application/json',
    'multipart/x-mixed-replace; boundary=x', '', 'nonsense', undefined,
  ])('sandboxes %s, which could run script or be read as a document', (type) => {
    expect(contentSafetyHeaders(type)).toEqual({ 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': 'sandbox' });
  });

  it.each(['image/png', 'image/jpeg', 'IMAGE/WEBP', 'image/avif', 'audio/mpeg', 'video/mp4; codecs="avc1"', 'application/pdf'])(
    'leaves %s (shown by a viewer that runs none of its script) unsandboxed, but nosniff',
    (type) => {
      expect(contentSafetyHeaders(type)).toEqual({ 'X-Content-Type-Options': 'nosniff' });
    },
  );

  it('reads the media type without parameters, lower-cased', () => {
    expect(mediaType('Text/HTML; charset=UTF-8')).toBe('text/html');
    expect(mediaType(undefined)).toBe('');
  });
});
