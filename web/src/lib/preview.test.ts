import { describe, expect, it } from 'vitest';
import { decodeTextPreview, IMAGE_PREVIEW_MAX, previewKind, safeImageType } from './preview';

describe('preview', () => {
  it('previews raster images by type or, for untyped objects, by extension', () => {
    expect(safeImageType('image/png', 'a.bin')).toBe('image/png');
    expect(safeImageType('image/jpeg; charset=binary', 'x')).toBe('image/jpeg');
    expect(safeImageType('application/octet-stream', 'cat.JPG')).toBe('image/jpeg');
    expect(previewKind('image/png', 'a.png', 100)).toBe('image');
    expect(previewKind('image/png', 'a.png', IMAGE_PREVIEW_MAX + 1)).toBe('none');
  });

  it('never renders SVG or HTML: they are shown as text', () => {
    expect(safeImageType('image/svg+xml', 'a.svg')).toBeUndefined();
    expect(safeImageType('application/octet-stream', 'a.svg')).toBeUndefined();
    expect(safeImageType('text/html', 'a.png')).toBeUndefined();
    expect(previewKind('image/svg+xml', 'a.svg', 10)).toBe('text');
    expect(previewKind('text/html', 'index.html', 10)).toBe('text');
  });

  it('previews text types and known text extensions, and nothing else', () => {
    expect(previewKind('application/json', 'x', 10)).toBe('text');
    expect(previewKind('application/vnd.api+json', 'x', 10)).toBe('text');
    expect(previewKind('', 'notes.md', 10)).toBe('text');
    expect(previewKind('application/zip', 'a.zip', 10)).toBe('none');
    expect(previewKind('application/octet-stream', 'blob', 10)).toBe('none');
  });

  it('decodes a text preview and says when it was cut', () => {
    const bytes = new TextEncoder().encode('héllo');
    expect(decodeTextPreview(bytes, bytes.length)).toEqual({ text: 'héllo', truncated: false });
    expect(decodeTextPreview(bytes, 1000).truncated).toBe(true);
  });
});
