// The object browser: folders by prefix with breadcrumbs, a virtualized list paged by cursor, uploads of files and
// folders (drag and drop or pickers) with a progress bar per file, batch delete, a versions view, and the object
// details (preview, download, versions, tags, lock, share link). Bucket, prefix, view and open object are in the URL.

import { useMemo, useRef, useState, type DragEvent } from 'react';
import { api, Api } from '../api';
import type { BucketDetails } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { useCanWrite } from '../hooks/use-session';
import { breadcrumbs, parentPrefix, uploadKey } from '../lib/object-keys';
import { browseRoute, Link, navigate, setQuery, useLocation } from '../router';
import { Button, Checkbox } from '../ui/controls';
import { ErrorNote, useToast } from '../ui/feedback';
import { PageHeader } from '../ui/layout';
import { describeError } from '../api/errors';
import { BatchDeleteDialog } from './browser/batch-delete';
import { filesFromDrop, filesFromInput, type PickedFile } from './browser/drop';
import { ObjectDetails } from './browser/object-details';
import { ObjectList } from './browser/object-list';
import { UploadPanel } from './browser/upload-panel';
import { UploadQueue } from './browser/upload-queue';
import { NewFolderDialog } from './browser/new-folder';
import { ObjectWorkDialogs, ObjectWorkButtons, type ObjectWork } from './browser/object-work';
import { parseSort, sortText } from './browser/sort-rows';
import { useListing, type Row } from './browser/use-listing';
import { ZipDownloadButton } from './browser/zip-download';

export default function ObjectBrowserPage({ params }: { params: string[] }) {
  const bucket = params[0] ?? '';
  const { query } = useLocation();
  const prefix = query.get('prefix') ?? '';
  const versionsView = query.get('view') === 'versions';
  const sort = parseSort(query.get('sort'));
  const openKey = query.get('object') ?? undefined;
  const openVersion = query.get('version') ?? undefined;
  const canWrite = useCanWrite();
  const { notify } = useToast();

  const details = useResource((signal) => api.get<BucketDetails>(Api.bucket(bucket), undefined, signal), [bucket]);
  const [filter, setFilter] = useState('');
  const listing = useListing(bucket, prefix + filter, versionsView);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [deleting, setDeleting] = useState(false);
  const [newFolder, setNewFolder] = useState(false);
  const [work, setWork] = useState<ObjectWork>();
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const reloadSoon = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const queue = useMemo(
    () =>
      new UploadQueue(() => {
        clearTimeout(reloadSoon.current);
        reloadSoon.current = setTimeout(() => listing.reload(), 300);
      }),
    [listing.reload],
  ); // One queue per listing: reloadSoon is a ref.

  const upload = (files: PickedFile[]): void => {
    if (!canWrite || files.length === 0) return;
    queue.add(
      bucket,
      files.map((f) => ({ key: uploadKey(prefix, f.path), file: f.file })),
    );
    notify(`Uploading ${files.length} file${files.length === 1 ? '' : 's'} to ${bucket}/${prefix}`);
  };

  const onDrop = (e: DragEvent): void => {
    e.preventDefault();
    setDragging(false);
    if (!canWrite) return;
    void filesFromDrop(e.dataTransfer).then(upload);
  };

  const selectedRows = listing.rows.filter((r) => selected.has(r.id));
  const toggle = (row: Row): void =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(row.id)) next.delete(row.id);
      else next.add(row.id);
      return next;
    });
  const toggleAll = (): void =>
    setSelected((s) => (listing.rows.every((r) => s.has(r.id)) ? new Set() : new Set(listing.rows.map((r) => r.id))));
  const b = details.data;

  return (
    <>
      <PageHeader
        title={
          <>
            Objects in <span className="mono">{bucket}</span>
          </>
        }
        subtitle={
          <nav aria-label="Folder" className="crumbs">
            <ol>
              <li>
                <Link to="buckets">Buckets</Link>
              </li>
              <li>
                <Link
                  to={browseRoute(bucket, '', { versions: versionsView })}
                  aria-current={prefix === '' ? 'page' : undefined}
                >
                  {bucket}
                </Link>
              </li>
              {breadcrumbs(prefix).map((c) => (
                <li key={c.prefix}>
                  <Link
                    to={browseRoute(bucket, c.prefix, { versions: versionsView })}
                    aria-current={c.prefix === prefix ? 'page' : undefined}
                  >
                    {c.label}
                  </Link>
                </li>
              ))}
            </ol>
          </nav>
        }
        actions={
          <Link to={`buckets/${encodeURIComponent(bucket)}`} className="btn btn-secondary">
            Bucket settings
          </Link>
        }
      />
      {details.error !== undefined ? (
        <ErrorNote message={describeError(details.error)} onRetry={details.reload} />
      ) : null}
      <div className="toolbar" role="toolbar" aria-label="Objects">
        {prefix ? (
          <Button
            icon="up"
            onClick={() => navigate(browseRoute(bucket, parentPrefix(prefix), { versions: versionsView }))}
          >
            Up
          </Button>
        ) : null}
        <Button icon="upload" variant="primary" write onClick={() => fileInput.current?.click()}>
          Upload files
        </Button>
        <Button icon="upload" write onClick={() => folderInput.current?.click()}>
          Upload folder
        </Button>
        <Button icon="plus" write onClick={() => setNewFolder(true)}>
          New folder
        </Button>
        <Button
          icon="trash"
          variant="danger"
          write
          disabled={selectedRows.length === 0}
          onClick={() => setDeleting(true)}
        >
          Delete selected{selectedRows.length ? ` (${selectedRows.length})` : ''}
        </Button>
        <ObjectWorkButtons
          bucket={bucket}
          prefix={prefix}
          selected={selectedRows}
          versionsView={versionsView}
          onWork={setWork}
        />
        <ZipDownloadButton bucket={bucket} prefix={prefix} rows={selectedRows} />
        <Button
          icon="refresh"
          onClick={() => {
            setSelected(new Set());
            listing.reload();
          }}
        >
          Refresh
        </Button>
        {b && b.versioning !== 'Unversioned' ? (
          <Checkbox
            label="Show versions"
            checked={versionsView}
            onChange={(e) => {
              setSelected(new Set());
              setQuery({ view: e.target.checked ? 'versions' : undefined });
            }}
          />
        ) : null}
        <label className="filter">
          <span className="visually-hidden">Filter by name</span>
          <input
            className="input"
            type="search"
            placeholder="Filter by name prefix…"
            value={filter}
            onChange={(e) => {
              setSelected(new Set());
              setFilter(e.target.value);
            }}
          />
        </label>
      </div>
      {canWrite ? (
        <>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            data-testid="upload-files"
            aria-label="Files to upload"
            onChange={(e) => {
              upload(filesFromInput(e.target.files));
              e.target.value = '';
            }}
          />
          <input
            ref={folderInput}
            type="file"
            multiple
            hidden
            data-testid="upload-folder"
            aria-label="Folder to upload"
            {...{ webkitdirectory: '' }}
            onChange={(e) => {
              upload(filesFromInput(e.target.files));
              e.target.value = '';
            }}
          />
        </>
      ) : null}
      <section
        className={`dropzone${dragging ? ' dropzone-active' : ''}`}
        aria-label={canWrite ? `Objects; drop files or folders here to upload them to ${bucket}/${prefix}` : 'Objects'}
        data-testid="dropzone"
        onDragOver={(e) => {
          if (canWrite) {
            e.preventDefault();
            e.dataTransfer.dropEffect = 'copy';
            setDragging(true);
          }
        }}
        onDragLeave={(e) => {
          if (e.currentTarget === e.target) setDragging(false);
        }}
        onDrop={onDrop}
      >
        {listing.error !== undefined && listing.rows.length === 0 ? (
          <ErrorNote message={describeError(listing.error)} onRetry={listing.reload} />
        ) : (
          <ObjectList
            bucket={bucket}
            sort={sort}
            onSort={(next) => setQuery({ sort: sortText(next) })}
            versionsView={versionsView}
            prefix={prefix}
            listing={listing}
            selected={selected}
            onToggle={toggle}
            onToggleAll={toggleAll}
            selectable={canWrite}
            onOpen={(key, version) => setQuery({ object: key, version }, { push: true })}
          />
        )}
        {dragging ? (
          <div className="drop-overlay" aria-hidden="true">
            Drop to upload to {bucket}/{prefix}
          </div>
        ) : null}
        {canWrite ? (
          <p className="hint drop-hint">
            Drag files or folders here to upload them. Files over 16 MiB are sent as multipart uploads.
          </p>
        ) : null}
      </section>
      <UploadPanel queue={queue} />
      {openKey !== undefined ? (
        <ObjectDetails
          bucket={bucket}
          objectKey={openKey}
          versionId={openVersion}
          objectLock={b?.objectLock ?? false}
          versioned={(b?.versioning ?? 'Unversioned') !== 'Unversioned'}
          onVersion={(v) => setQuery({ version: v })}
          onClose={() => setQuery({ object: undefined, version: undefined })}
          onChanged={listing.reload}
          onMoved={(to) => {
            if (to.bucket === bucket) return setQuery({ object: to.key, version: undefined });
            const route = browseRoute(to.bucket, to.key.slice(0, to.key.lastIndexOf('/') + 1));
            navigate(`${route}${route.includes('?') ? '&' : '?'}object=${encodeURIComponent(to.key)}`);
          }}
        />
      ) : null}
      {deleting ? (
        <BatchDeleteDialog
          bucket={bucket}
          rows={selectedRows}
          versioned={(b?.versioning ?? 'Unversioned') !== 'Unversioned'}
          onClose={() => setDeleting(false)}
          onDone={() => {
            setSelected(new Set());
            listing.reload();
          }}
        />
      ) : null}
      <ObjectWorkDialogs
        bucket={bucket}
        prefix={prefix}
        work={work}
        onClose={() => setWork(undefined)}
        onDone={(summary) => {
          notify(summary);
          setSelected(new Set());
          listing.reload();
        }}
      />
      {newFolder ? <NewFolderDialog bucket={bucket} prefix={prefix} onClose={() => setNewFolder(false)} /> : null}
    </>
  );
}
