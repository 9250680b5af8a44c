// One object: its metadata and preview, download, delete, versions, tags, retention and legal hold, and a share
// link. Opened from the browser; the key and version are in the URL (?object=...&version=...).

import { useState, type ReactNode } from 'react';
import { api, Api, transfers } from '../../api';
import { ApiError, describeError } from '../../api/errors';
import type { ObjectInfo, Tag } from '../../api/types';
import { useResource } from '../../hooks/use-resource';
import { formatBytes, formatTime } from '../../lib/format';
import { baseName } from '../../lib/object-keys';
import { Button } from '../../ui/controls';
import { CopyButton } from '../../ui/copy';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { ErrorNote, Loading, useToast } from '../../ui/feedback';
import { Badge, Facts, TabPanel, Tabs } from '../../ui/layout';
import { TagEditor } from '../../ui/tag-editor';
import { LockPanel } from './lock-panel';
import { ObjectActions } from './object-work';
import { ObjectPreview } from './object-preview';
import { DeleteMarkerPanel } from './delete-marker-panel';
import { SharePanel } from './share-panel';
import { VersionsPanel } from './versions-panel';

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'versions', label: 'Versions' },
  { id: 'tags', label: 'Tags' },
  { id: 'lock', label: 'Retention & hold' },
  { id: 'share', label: 'Share link' },
] as const;
type TabId = (typeof TABS)[number]['id'];

interface Props {
  bucket: string;
  objectKey: string;
  versionId: string | undefined;
  objectLock: boolean;
  versioned: boolean;
  onVersion: (versionId: string | undefined) => void;
  onClose: () => void;
  onChanged: () => void;
  /** The object was renamed or moved (object-work.tsx): show it where it went. */
  onMoved?: (to: { bucket: string; key: string }) => void;
}

function Overview({
  bucket,
  info,
  onDeleted,
  work,
}: {
  bucket: string;
  info: ObjectInfo;
  onDeleted: () => void;
  /** Rename, copy, move and metadata (object-work.tsx). */
  work?: ReactNode;
}) {
  const [progress, setProgress] = useState<number>();
  const [error, setError] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const { notify } = useToast();
  const download = (): void => {
    setError(undefined);
    setProgress(0);
    transfers
      .download(
        { path: Api.bucket(bucket, '/objects/content'), query: { key: info.key, versionId: info.versionId } },
        baseName(info.key),
        { onProgress: (p) => setProgress(p.total ? Math.round((p.loaded / p.total) * 100) : undefined) },
      )
      .catch((err: unknown) => setError(describeError(err)))
      .finally(() => setProgress(undefined));
  };
  return (
    <div className="stack">
      <div className="actions">
        <Button variant="primary" icon="download" busy={progress !== undefined} onClick={download}>
          {progress !== undefined ? `Downloading ${progress}%` : 'Download'}
        </Button>
        {work}
        <Button variant="danger" icon="trash" write onClick={() => setDeleting(true)}>
          Delete
        </Button>
      </div>
      {error ? <ErrorNote message={error} /> : null}
      <div className="grid-2">
        <Facts
          items={[
            ['Size', `${formatBytes(info.size)} (${info.size.toLocaleString('en-US')} bytes)`],
            ['Type', info.contentType ?? '–'],
            ['Last modified', formatTime(info.lastModified)],
            [
              'Version',
              <span key="v" className="mono">
                {info.versionId}
                {info.isLatest ? (
                  <>
                    {' '}
                    <Badge tone="ok">latest</Badge>
                  </>
                ) : null}
              </span>,
            ],
            [
              'ETag',
              <span key="e" className="mono break">
                {info.etag}
              </span>,
            ],
            ['Storage class', info.storageClass],
            ...(info.checksum
              ? [
                  [
                    `Checksum (${info.checksum.algorithm})`,
                    <span key="c" className="mono break">
                      {info.checksum.value}
                    </span>,
                  ] as [string, ReactNode],
                ]
              : []),
            ...(info.partCount ? [['Parts', String(info.partCount)] as [string, string]] : []),
            ...Object.entries(info.userMetadata).map(([k, v]) => [`x-amz-meta-${k}`, v] as [string, string]),
          ]}
        />
        <ObjectPreview bucket={bucket} info={info} />
      </div>
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${baseName(info.key)}?`}
          confirmLabel={info.isLatest ? 'Delete object' : 'Delete version'}
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await api.del(Api.bucket(bucket, '/objects/content'), {
              key: info.key,
              ...(info.isLatest ? {} : { versionId: info.versionId }),
            });
            notify('Deleted.');
            onDeleted();
          }}
        >
          <p>
            {info.isLatest
              ? 'In a versioned bucket this adds a delete marker: the object disappears from listings and its versions stay, so it can be restored. Otherwise it is gone for good.'
              : 'This version is removed for good.'}
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

export function ObjectDetails({
  bucket,
  objectKey,
  versionId,
  objectLock,
  versioned,
  onVersion,
  onClose,
  onChanged,
  onMoved,
}: Props) {
  const [tab, setTab] = useState<TabId>('overview');
  const info = useResource(
    (signal) => api.get<ObjectInfo>(Api.bucket(bucket, '/objects/info'), { key: objectKey, versionId }, signal),
    [bucket, objectKey, versionId],
  );
  const changed = (): void => {
    info.reload();
    onChanged();
  };
  const gone = info.error instanceof ApiError && info.error.status === 404;
  // A delete marker has no metadata to show: the info route answers 405 for one (MethodNotAllowed), and 404 when
  // the key's current version is one.
  const marker =
    info.error instanceof ApiError &&
    ((info.error.status === 405 && versionId !== undefined) || (gone && versioned && versionId === undefined));
  const tabs = TABS.filter((t) => versioned || t.id !== 'versions');
  return (
    <Dialog title={<span className="mono break">{baseName(objectKey)}</span>} onClose={onClose} wide>
      <div className="object-where">
        <p className="muted break">
          s3://{bucket}/{objectKey}
          {versionId ? ` · version ${versionId}` : ''}
        </p>
        <div className="actions">
          <CopyButton text={`s3://${bucket}/${objectKey}`} label="Copy S3 URI" />
          <CopyButton text={objectKey} label="Copy key" />
        </div>
      </div>
      <Tabs label="Object" tabs={tabs} current={tab} onChange={setTab} />
      <TabPanel id={tab}>
        {tab === 'versions' ? (
          <VersionsPanel
            bucket={bucket}
            objectKey={objectKey}
            current={info.data?.versionId}
            onChanged={changed}
            onView={(v) => {
              onVersion(v);
              setTab('overview');
            }}
          />
        ) : marker ? (
          <DeleteMarkerPanel
            bucket={bucket}
            objectKey={objectKey}
            versionId={versionId}
            onUndeleted={() => {
              onChanged();
              onVersion(undefined);
              info.reload();
            }}
          />
        ) : gone ? (
          <p className="note note-info">
            {versionId
              ? 'This version does not exist.'
              : 'The current version of this key is a delete marker (or the key is gone).'}
            {versioned ? ' Its earlier versions are under Versions.' : ''}
          </p>
        ) : info.error !== undefined ? (
          <ErrorNote message={describeError(info.error)} onRetry={info.reload} />
        ) : !info.data ? (
          <Loading />
        ) : tab === 'overview' ? (
          <Overview
            bucket={bucket}
            info={info.data}
            work={
              <ObjectActions
                bucket={bucket}
                info={info.data}
                onChanged={changed}
                onMoved={(to) => {
                  onChanged();
                  if (onMoved) onMoved(to);
                  else onClose();
                }}
              />
            }
            onDeleted={() => {
              onChanged();
              if (versioned) {
                onVersion(undefined);
                info.reload();
              } else onClose();
            }}
          />
        ) : tab === 'tags' ? (
          <TagEditor
            key={info.data.versionId}
            label="Object tags"
            initial={info.data.tags}
            max={10}
            onSave={async (tags: Tag[]) => {
              const query = { key: objectKey, versionId: info.data?.versionId };
              if (tags.length === 0) await api.del(Api.bucket(bucket, '/objects/tagging'), query);
              else await api.put(Api.bucket(bucket, '/objects/tagging'), { tags }, query);
            }}
          />
        ) : tab === 'lock' ? (
          <LockPanel
            key={info.data.versionId}
            bucket={bucket}
            info={info.data}
            objectLock={objectLock}
            onChanged={changed}
          />
        ) : (
          <SharePanel bucket={bucket} objectKey={objectKey} versionId={versionId} />
        )}
      </TabPanel>
    </Dialog>
  );
}
