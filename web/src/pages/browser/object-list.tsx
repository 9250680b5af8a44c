// The virtualized object list: only the rows in view are in the DOM, and the next page is fetched as the end comes
// into view, so a prefix with 100,000 keys scrolls as smoothly as one with ten.

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { formatBytes, formatTime } from '../../lib/format';
import { entryName, shortVersionId } from '../../lib/object-keys';
import { browseRoute, Link } from '../../router';
import { Icon } from '../../ui/icons';
import { Badge } from '../../ui/layout';
import { FolderSize } from './folder-size';
import { sortRows, type Sort, type SortBy } from './sort-rows';
import type { Listing, Row } from './use-listing';

interface Props {
  bucket: string;
  /** The rows' order (the loaded rows are sorted; the server pages in key order). */
  sort: Sort;
  onSort: (s: Sort) => void;
  /** Folder links keep the versions view. */
  versionsView: boolean;
  prefix: string;
  listing: Listing;
  selected: ReadonlySet<string>;
  onToggle: (row: Row) => void;
  onToggleAll: () => void;
  onOpen: (key: string, versionId?: string) => void;
  selectable: boolean;
}

const ROW_HEIGHT = 44;

export function ObjectList({
  bucket,
  sort,
  onSort,
  versionsView,
  prefix,
  listing,
  selected,
  onToggle,
  onToggleAll,
  onOpen,
  selectable,
}: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => sortRows(listing.rows, sort), [listing.rows, sort.by, sort.desc]);
  const count = rows.length + (listing.done ? 0 : 1);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= listing.rows.length - 1) listing.loadMore();
  }, [lastIndex, listing]);

  const allSelected = listing.rows.length > 0 && listing.rows.every((r) => selected.has(r.id));
  return (
    <div
      className="olist"
      role="table"
      aria-label={`Objects in ${bucket}/${prefix}`}
      aria-rowcount={listing.done ? listing.rows.length + 1 : -1}
    >
      <div className="olist-head" role="rowgroup">
        <div className="olist-row" role="row" aria-rowindex={1}>
          <div role="columnheader" className="col-check">
            {selectable ? (
              <input
                type="checkbox"
                aria-label="Select every loaded row"
                checked={allSelected}
                onChange={onToggleAll}
              />
            ) : (
              <span className="visually-hidden">Selection</span>
            )}
          </div>
          <SortHeader by="name" className="col-name" sort={sort} onSort={onSort}>
            Name
          </SortHeader>
          <SortHeader by="size" className="col-size" sort={sort} onSort={onSort}>
            Size
          </SortHeader>
          <SortHeader by="date" className="col-date" sort={sort} onSort={onSort}>
            Last modified
          </SortHeader>
        </div>
      </div>
      <div className="olist-body" ref={scrollRef} role="rowgroup" tabIndex={-1}>
        <div className="olist-spacer" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index];
            return (
              <div
                key={row?.id ?? 'more'}
                className="olist-row olist-item"
                role="row"
                aria-rowindex={item.index + 2}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row ? (
                  <Cells
                    row={row}
                    bucket={bucket}
                    versionsView={versionsView}
                    prefix={prefix}
                    checked={selected.has(row.id)}
                    onToggle={onToggle}
                    onOpen={onOpen}
                    selectable={selectable}
                  />
                ) : (
                  <div role="cell" className="col-name muted">
                    {listing.error ? 'Could not load more.' : 'Loading more…'}
                  </div>
                )}
              </div>
            );
          })}
        </div>
        {listing.done && listing.rows.length === 0 ? (
          <p className="empty">{prefix ? 'This folder is empty.' : 'This bucket is empty.'}</p>
        ) : null}
      </div>
    </div>
  );
}

/** A column header that sorts by its column (again: the other way), with aria-sort for assistive technology. */
function SortHeader({
  by,
  className,
  sort,
  onSort,
  children,
}: {
  by: SortBy;
  className: string;
  sort: Sort;
  onSort: (s: Sort) => void;
  children: ReactNode;
}) {
  const current = sort.by === by;
  return (
    <div
      role="columnheader"
      className={className}
      aria-sort={current ? (sort.desc ? 'descending' : 'ascending') : 'none'}
    >
      <button
        type="button"
        className="sort-button"
        onClick={() => onSort({ by, desc: current ? !sort.desc : by !== 'name' })}
      >
        {children}
        <span aria-hidden="true">{current ? (sort.desc ? ' ↓' : ' ↑') : ''}</span>
      </button>
    </div>
  );
}

function Cells({
  row,
  bucket,
  versionsView,
  prefix,
  checked,
  onToggle,
  onOpen,
  selectable,
}: {
  row: Row;
  bucket: string;
  versionsView: boolean;
  prefix: string;
  checked: boolean;
  onToggle: (r: Row) => void;
  onOpen: Props['onOpen'];
  selectable: boolean;
}) {
  const name =
    row.kind === 'folder'
      ? entryName(row.prefix, prefix)
      : entryName(row.kind === 'object' ? row.object.key : row.version.key, prefix);
  const check = selectable ? (
    <input type="checkbox" aria-label={`Select ${name}`} checked={checked} onChange={() => onToggle(row)} />
  ) : null;
  if (row.kind === 'folder') {
    return (
      <>
        <div role="cell" className="col-check">
          {check}
        </div>
        <div role="cell" className="col-name">
          <Link to={browseRoute(bucket, row.prefix, { versions: versionsView })} className="entry">
            <Icon name="folder" />
            {name}
          </Link>
        </div>
        <div role="cell" className="col-size muted">
          <FolderSize bucket={bucket} prefix={row.prefix} name={name} inCell />
        </div>
        <div role="cell" className="col-date" />
      </>
    );
  }
  if (row.kind === 'object') {
    return (
      <>
        <div role="cell" className="col-check">
          {check}
        </div>
        <div role="cell" className="col-name">
          <button type="button" className="entry linkish" onClick={() => onOpen(row.object.key)}>
            <Icon name="file" />
            {name}
          </button>
        </div>
        <div role="cell" className="col-size">
          {formatBytes(row.object.size)}
        </div>
        <div role="cell" className="col-date">
          {formatTime(row.object.lastModified)}
        </div>
      </>
    );
  }
  const v = row.version;
  return (
    <>
      <div role="cell" className="col-check">
        {check}
      </div>
      <div role="cell" className="col-name">
        <button type="button" className="entry linkish" onClick={() => onOpen(v.key, v.versionId)}>
          <Icon name={v.isDeleteMarker ? 'trash' : 'file'} />
          {name}
        </button>
        <span className="version-tags">
          <span className="mono muted" title={v.versionId}>
            {shortVersionId(v.versionId)}
          </span>
          {v.isLatest ? <Badge tone="ok">latest</Badge> : null}
          {v.isDeleteMarker ? <Badge tone="warn">delete marker</Badge> : null}
        </span>
      </div>
      <div role="cell" className="col-size">
        {v.isDeleteMarker ? '–' : formatBytes(v.size)}
      </div>
      <div role="cell" className="col-date">
        {formatTime(v.lastModified)}
      </div>
    </>
  );
}
