import { describe, expect, it } from 'vitest';
import {
  baseName,
  breadcrumbs,
  bucketNameProblem,
  entryName,
  folderNameProblem,
  folderPath,
  isFolderMarker,
  keyProblem,
  parentPrefix,
  shortVersionId,
  uploadKey,
} from './object-keys';

describe('prefixes', () => {
  it('splits a prefix into breadcrumbs, empty segments included', () => {
    expect(breadcrumbs('')).toEqual([]);
    expect(breadcrumbs('a/b/')).toEqual([
      { label: 'a', prefix: 'a/' },
      { label: 'b', prefix: 'a/b/' },
    ]);
    expect(breadcrumbs('a//')).toEqual([
      { label: 'a', prefix: 'a/' },
      { label: '/', prefix: 'a//' },
    ]);
    expect(breadcrumbs('x/part')).toEqual([
      { label: 'x', prefix: 'x/' },
      { label: 'part', prefix: 'x/part' },
    ]);
  });

  it('goes one folder up and names entries inside a folder', () => {
    expect(parentPrefix('a/b/')).toBe('a/');
    expect(parentPrefix('a/')).toBe('');
    expect(parentPrefix('')).toBe('');
    expect(entryName('a/b/c.txt', 'a/b/')).toBe('c.txt');
    expect(entryName('a/b/d/', 'a/b/')).toBe('d/');
    expect(baseName('a/b/c.txt')).toBe('c.txt');
    expect(baseName('a/b/')).toBe('b');
  });

  it('keys uploaded files under the folder, keeping their relative paths', () => {
    expect(uploadKey('docs/', 'report.pdf')).toBe('docs/report.pdf');
    expect(uploadKey('', 'pics/2030/cat.png')).toBe('pics/2030/cat.png');
    expect(uploadKey('x/', '.\\win\\file.txt')).toBe('x/win/file.txt');
    expect(uploadKey('x/', '/abs/file')).toBe('x/abs/file');
  });
});

describe('validation', () => {
  it('checks keys, folder names and bucket names', () => {
    expect(keyProblem('')).toBeDefined();
    expect(keyProblem('é'.repeat(512))).toBeUndefined();
    expect(keyProblem('é'.repeat(513))).toBeDefined();
    expect(folderNameProblem('a/b')).toBeUndefined();
    expect(folderNameProblem('/a/b/')).toBeUndefined();
    expect(folderPath(' /a/b/ ')).toBe('a/b');
    expect(folderNameProblem('a//b')).toBeDefined();
    expect(folderNameProblem('a/../b')).toBeDefined();
    expect(folderNameProblem('/')).toBeDefined();
    expect(folderNameProblem('..')).toBeDefined();
    expect(isFolderMarker('photos/', 'photos/')).toBe(true);
    expect(isFolderMarker('photos/a', 'photos/')).toBe(false);
    expect(isFolderMarker('', '')).toBe(false);
    expect(folderNameProblem('photos')).toBeUndefined();
    expect(bucketNameProblem('my-bucket.1')).toBeUndefined();
    for (const bad of ['ab', 'Upper', '-x-', 'a..b', '192.168.1.1', 'xn--abc', 'a'.repeat(64)])
      expect(bucketNameProblem(bad), bad).toBeDefined();
  });
});

describe('shortVersionId', () => {
  it('keeps the distinguishing tail of a long id and short ids whole', () => {
    expect(shortVersionId('01a200e8-13de-75ec-bfb4-e934f9e90427')).toBe('…e934f9e90427');
    expect(shortVersionId('null')).toBe('null');
  });
});
