import { describe, expect, it } from 'vitest';
import { describeSummary, folderOf, summaryLines, targetKey } from './object-work';

describe('object work helpers', () => {
  it("keeps a key's path below the folder it was selected in", () => {
    expect(targetKey('docs/a.txt', '', 'archive/')).toBe('archive/docs/a.txt');
    expect(targetKey('photos/2030/x.jpg', 'photos/', '')).toBe('2030/x.jpg');
    expect(targetKey('other/y', 'photos/', 'in/')).toBe('in/other/y');
    expect(folderOf('a/b/c.txt')).toBe('a/b/');
    expect(folderOf('c.txt')).toBe('');
  });

  it('says when a folder sum stopped at its bound', () => {
    const done = { objectCount: 1, totalBytes: 2048, truncated: false, bound: 100_000 };
    expect(describeSummary(done)).toBe('1 object, 2 KiB');
    expect(summaryLines(done)).toEqual(['1 object', '2 KiB']);
    const cut = { objectCount: 100_000, totalBytes: 5 * 1024 ** 3, truncated: true, bound: 100_000 };
    expect(describeSummary(cut)).toBe('over 100,000 objects, over 5 GiB (counting stopped at 100,000)');
    expect(summaryLines(cut)).toEqual(['100,000+ objects', '5 GiB+']);
  });
});
