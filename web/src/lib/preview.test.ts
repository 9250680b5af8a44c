import { describe, expect, it } from 'vitest';
import { decodeTextPreview, IMAGE_PREVIEW_MAX, previewKind, previewMax, renderedType } from './preview';

describe('preview', () => {
  it('previews images by type or, for untyped objects, by extension', () => {
    expect(renderedType('image/png', 'a.bin')).toEqual({ kind: 'image', type: 'image/png' });
    expect(renderedType('image/jpeg; charset=binary', 'x')).toEqual({ kind: 'image', type: 'image/jpeg' });
    expect(renderedType('application/octet-stream', 'cat.JPG')).toEqual({ kind: 'image', type: 'image/jpeg' });
    expect(previewKind('image/png', 'a.png', 100)).toBe('image');
    expect(previewKind('image/png', 'a.png', IMAGE_PREVIEW_MAX + 1)).toBe('tooLarge');
  });

  it('renders SVG as a picture (an <img>), and never HTML, which is shown as text', () => {
    expect(renderedType('image/svg+xml', 'a.svg')).toEqual({ kind: 'image', type: 'image/svg+xml' });
    expect(renderedType('application/octet-stream', 'a.svg')).toEqual({ kind: 'image', type: 'image/svg+xml' });
    expect(renderedType('text/html', 'a.png')).toBeUndefined();
    expect(previewKind('text/html', 'index.html', 10)).toBe('text');
    expect(previewKind('application/xhtml+xml', 'a.xhtml', 10)).toBe('text');
  });

  it('previews audio, video and PDF by type or extension, within their limits', () => {
    expect(previewKind('audio/mpeg', 'x', 10)).toBe('audio');
    expect(renderedType('', 'song.opus')).toEqual({ kind: 'audio', type: 'audio/ogg' });
    expect(previewKind('video/webm', 'x', 10)).toBe('video');
    expect(renderedType('binary/octet-stream', 'clip.m4v')).toEqual({ kind: 'video', type: 'video/mp4' });
    expect(previewKind('application/pdf', 'x', 10)).toBe('pdf');
    expect(previewKind('application/pdf', 'x', previewMax('pdf') + 1)).toBe('tooLarge');
    // A stored type wins over the extension: a "PDF" typed as HTML is text, never a rendered document.
    expect(previewKind('text/html', 'fake.pdf', 10)).toBe('text');
    expect(previewKind('video/quicktime', 'a.mov', 10)).toBe('none');
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
