// Sorting the loaded rows of the object browser by name, size or date (folders first, as the AWS console lists
// them). The server pages in key order; a sort applies to the rows loaded so far. docs/console.md, "Objects".

import type { Row } from './use-listing';

export type SortBy = 'name' | 'size' | 'date';
export interface Sort {
  by: SortBy;
  desc: boolean;
}

/** "size-desc" in the URL; name ascending (the server's order) when absent or unknown. */
export function parseSort(text: string | null): Sort {
  const [by, dir] = (text ?? '').split('-');
  if (by === 'size' || by === 'date' || by === 'name') return { by, desc: dir === 'desc' };
  return { by: 'name', desc: false };
}

export function sortText(s: Sort): string | undefined {
  return s.by === 'name' && !s.desc ? undefined : `${s.by}-${s.desc ? 'desc' : 'asc'}`;
}

const keyOf = (r: Row): string => (r.kind === 'folder' ? r.prefix : r.kind === 'object' ? r.object.key : r.version.key);
const sizeOf = (r: Row): number => (r.kind === 'object' ? r.object.size : r.kind === 'version' ? r.version.size : 0);
const dateOf = (r: Row): string =>
  r.kind === 'object' ? r.object.lastModified : r.kind === 'version' ? r.version.lastModified : '';

export function sortRows(rows: readonly Row[], s: Sort): Row[] {
  if (s.by === 'name' && !s.desc) return [...rows];
  const dir = s.desc ? -1 : 1;
  const byKey = (a: Row, b: Row): number => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
  const cmp = (a: Row, b: Row): number => {
    if ((a.kind === 'folder') !== (b.kind === 'folder')) return a.kind === 'folder' ? -1 : 1;
    const primary =
      s.by === 'size'
        ? sizeOf(a) - sizeOf(b)
        : s.by === 'date'
          ? dateOf(a) < dateOf(b)
            ? -1
            : dateOf(a) > dateOf(b)
              ? 1
              : 0
          : byKey(a, b);
    return primary !== 0 ? primary * dir : byKey(a, b);
  };
  return [...rows].sort(cmp);
}
