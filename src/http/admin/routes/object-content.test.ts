import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from './object-content.js';

describe('attachmentDisposition', () => {
  it('names the download after the last key segment, with an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachmentDisposition('reports/2030/q1.pdf')).toBe(`attachment; filename="q1.pdf"; filename*=UTF-8''q1.pdf`);
    expect(attachmentDisposition('dir/日本 "x".txt')).toBe(
      `attachment; filename="__ _x_.txt"; filename*=UTF-8''${encodeURIComponent('日本 "x".txt')}`,
    );
    expect(attachmentDisposition('folder/')).toBe(`attachment; filename="download"; filename*=UTF-8''download`);
  });

  it('never lets a key inject header syntax', () => {
    const value = attachmentDisposition('a\r\nSet-Cookie: x=1;\\"');
    expect(value).not.toMatch(/[\r\n]/);
    expect(value.startsWith('attachment; filename="a__Set-Cookie: x=1;__"; ')).toBe(true);
  });
});
