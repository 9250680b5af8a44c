import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zipEntryName } from './zip-entry-name.js';

describe('zipEntryName', () => {
  it('keeps ordinary keys and folders as they are', () => {
    expect(zipEntryName('a/b c/ünï.txt')).toBe('a/b c/ünï.txt');
    expect(zipEntryName('folder/')).toBe('folder/');
  });

  it('encodes what could climb out or collide', () => {
    expect(zipEntryName('../x')).toBe('%2E%2E/x');
    expect(zipEntryName('/x')).toBe('%2F/x');
    expect(zipEntryName('a//b')).toBe('a/%2F/b');
    expect(zipEntryName('c:\\x')).toBe('c%3A%5Cx');
    expect(zipEntryName('%2E%2E')).toBe('%252E%252E');
  });

  it('gives distinct keys distinct names, none with a "." or ".." segment or a leading "/"', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '.', '/', '\\', '%', ':', 'C') }), fc.string(), (a, b) => {
        fc.pre(a !== b && a !== '' && b !== '');
        const [na, nb] = [zipEntryName(a), zipEntryName(b)];
        expect(na).not.toBe(nb);
        for (const name of [na, nb]) {
          expect(name.startsWith('/')).toBe(false);
          expect(name.split('/').some((s) => s === '.' || s === '..')).toBe(false);
          expect(name).not.toMatch(/^[a-zA-Z]:|\\/);
        }
      }),
    );
  });
});
