import { describe, expect, it } from 'vitest';
import { parseSort, sortRows, sortText } from './sort-rows';
import type { Row } from './use-listing';

const obj = (key: string, size: number, lastModified: string): Row => ({
  kind: 'object',
  id: `o:${key}`,
  object: { key, size, lastModified, etag: 'e', storageClass: 'STANDARD' } as never,
});
const folder = (prefix: string): Row => ({ kind: 'folder', id: `p:${prefix}`, prefix });
const rows = [
  obj('a.txt', 30, '2030-01-02T00:00:00Z'),
  folder('z/'),
  obj('b.txt', 10, '2030-01-03T00:00:00Z'),
  obj('c.txt', 20, '2030-01-01T00:00:00Z'),
];
const ids = (r: Row[]): string[] => r.map((x) => x.id);

describe('sortRows', () => {
  it('sorts by size and date either way, folders first, names breaking ties', () => {
    expect(ids(sortRows(rows, { by: 'size', desc: false }))).toEqual(['p:z/', 'o:b.txt', 'o:c.txt', 'o:a.txt']);
    expect(ids(sortRows(rows, { by: 'size', desc: true }))).toEqual(['p:z/', 'o:a.txt', 'o:c.txt', 'o:b.txt']);
    expect(ids(sortRows(rows, { by: 'date', desc: true }))).toEqual(['p:z/', 'o:b.txt', 'o:a.txt', 'o:c.txt']);
    expect(ids(sortRows(rows, { by: 'name', desc: true }))).toEqual(['p:z/', 'o:c.txt', 'o:b.txt', 'o:a.txt']);
    expect(ids(sortRows(rows, { by: 'name', desc: false }))).toEqual(ids(rows));
  });

  it('reads and writes the URL form', () => {
    expect(parseSort('size-desc')).toEqual({ by: 'size', desc: true });
    expect(parseSort('bogus')).toEqual({ by: 'name', desc: false });
    expect(sortText({ by: 'name', desc: false })).toBeUndefined();
    expect(sortText({ by: 'date', desc: false })).toBe('date-asc');
  });
});
