// Every version of one key: view, download, restore an older one (copied back as the newest version), delete one
// for good.

import { useState } from 'react';
import { api, Api, transfers } from '../../api';
import { describeError } from '../../api/errors';
import type { ObjectVersion, VersionsPage } from '../../api/types';
import { useResource } from '../../hooks/use-resource';
import { formatBytes, formatTime } from '../../lib/format';
import { baseName } from '../../lib/object-keys';
import { Button, Checkbox } from '../../ui/controls';
import { ConfirmDialog } from '../../ui/dialog';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Badge, TableWrap } from '../../ui/layout';

/** Every version of exactly `key` (the listing by prefix also returns longer keys, which are skipped). */
export async function versionsOf(bucket: string, key: string, signal: AbortSignal): Promise<ObjectVersion[]> {
  const out: ObjectVersion[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await api.get<VersionsPage>(
      Api.bucket(bucket, '/objects/versions'),
      { prefix: key, cursor, limit: 1000 },
      signal,
    );
    out.push(...res.versions.filter((v) => v.key === key));
    // Versions are listed by key: once a longer key shows up, this key's versions are all in.
    if (!res.nextCursor || res.versions.some((v) => v.key > key)) break;
    cursor = res.nextCursor;
  }
  return out;
}

interface Props {
  bucket: string;
  objectKey: string;
  current: string | undefined;
  onView: (versionId: string) => void;
  onChanged: () => void;
}

export function VersionsPanel({ bucket, objectKey, current, onView, onChanged }: Props) {
  const versions = useResource((signal) => versionsOf(bucket, objectKey, signal), [bucket, objectKey]);
  const [restoring, setRestoring] = useState<ObjectVersion>();
  const [deleting, setDeleting] = useState<ObjectVersion>();
  const [bypass, setBypass] = useState(false);
  const [error, setError] = useState<string>();
  const { notify } = useToast();
  const download = (v: ObjectVersion): void => {
    setError(undefined);
    transfers
      .download(
        { path: Api.bucket(bucket, '/objects/content'), query: { key: v.key, versionId: v.versionId } },
        baseName(v.key),
      )
      .catch((err: unknown) => setError(describeError(err)));
  };
  return (
    <div className="stack">
      <Loaded resource={versions} feature="Versions">
        {(list) =>
          list.length === 0 ? (
            <Empty>No versions.</Empty>
          ) : (
            <TableWrap label="Versions">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">Written</th>
                    <th scope="col" className="num">
                      Size
                    </th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((v) => (
                    <tr key={v.versionId} className={v.versionId === current ? 'row-current' : undefined}>
                      <td>
                        <span className="mono">{v.versionId}</span>{' '}
                        {v.isLatest ? <Badge tone="ok">latest</Badge> : null}
                        {v.isDeleteMarker ? <Badge tone="warn">delete marker</Badge> : null}
                      </td>
                      <td>{formatTime(v.lastModified)}</td>
                      <td className="num">{v.isDeleteMarker ? '–' : formatBytes(v.size)}</td>
                      <td className="row-actions">
                        {!v.isDeleteMarker ? (
                          <Button
                            variant="ghost"
                            onClick={() => onView(v.versionId)}
                            aria-label={`View version ${v.versionId}`}
                          >
                            View
                          </Button>
                        ) : null}
                        {!v.isDeleteMarker ? (
                          <Button
                            variant="ghost"
                            onClick={() => download(v)}
                            aria-label={`Download version ${v.versionId}`}
                          >
                            Download
                          </Button>
                        ) : null}
                        {!v.isLatest && !v.isDeleteMarker ? (
                          <Button
                            variant="ghost"
                            write
                            onClick={() => setRestoring(v)}
                            aria-label={`Restore version ${v.versionId}`}
                          >
                            Restore
                          </Button>
                        ) : null}
                        <Button
                          variant="ghost"
                          write
                          onClick={() => {
                            setBypass(false);
                            setDeleting(v);
                          }}
                          aria-label={`Delete version ${v.versionId}`}
                        >
                          Delete
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
      {error ? <ErrorNote message={error} /> : null}
      {restoring ? (
        <ConfirmDialog
          title="Restore this version?"
          confirmLabel="Restore version"
          onClose={() => setRestoring(undefined)}
          onConfirm={async () => {
            await api.post(Api.bucket(bucket, '/objects/copy'), {
              key: objectKey,
              sourceVersionId: restoring.versionId,
            });
            notify('Version restored: it is now the latest version.');
            versions.reload();
            onChanged();
          }}
        >
          <p>
            The version written {formatTime(restoring.lastModified)} is copied as a new, latest version of{' '}
            <span className="mono">{objectKey}</span>. Every other version stays.
          </p>
        </ConfirmDialog>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete this version for good?"
          confirmLabel="Delete version"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            await api.del(Api.bucket(bucket, '/objects/content'), {
              key: objectKey,
              versionId: deleting.versionId,
              bypassGovernance: bypass || undefined,
            });
            notify('Version deleted.');
            versions.reload();
            onChanged();
          }}
        >
          <p>
            Version <span className="mono">{deleting.versionId}</span> is removed permanently
            {deleting.isDeleteMarker ? ': removing a delete marker brings the object back' : ''}.
          </p>
          <Checkbox
            label="Bypass governance retention"
            checked={bypass}
            onChange={(e) => setBypass(e.target.checked)}
            hint="Needed only for a version under GOVERNANCE retention."
          />
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
