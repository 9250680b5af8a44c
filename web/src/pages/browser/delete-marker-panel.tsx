// A delete marker opened from the versions view (or a key whose current version is one): what it is, and
// "Undelete", which removes the marker (a DELETE of its version id) so the version before it is current again.
// docs/console.md, "Objects".

import { useState } from 'react';
import { api, Api } from '../../api';
import type { ObjectVersion } from '../../api/types';
import { useResource } from '../../hooks/use-resource';
import { formatBytes, formatTime } from '../../lib/format';
import { Button } from '../../ui/controls';
import { ConfirmDialog } from '../../ui/dialog';
import { Loaded, useToast } from '../../ui/feedback';
import { Facts } from '../../ui/layout';
import { versionsOf } from './versions-panel';

interface Props {
  bucket: string;
  objectKey: string;
  /** The marker's version id; without it, the key's newest version (when that is a marker). */
  versionId: string | undefined;
  /** After the marker is gone: the object is back (or, for an older marker, nothing visible changed). */
  onUndeleted: () => void;
}

interface Found {
  marker: ObjectVersion | undefined;
  /** The newest real version older than the marker: what an undelete brings back. */
  restores: ObjectVersion | undefined;
}

async function findMarker(
  { bucket, key, versionId }: { bucket: string; key: string; versionId: string | undefined },
  signal: AbortSignal,
) {
  const list = await versionsOf(bucket, key, signal);
  const at = versionId === undefined ? 0 : list.findIndex((v) => v.versionId === versionId);
  const marker = at >= 0 && list[at]?.isDeleteMarker ? list[at] : undefined;
  const restores = marker ? list.slice(at + 1).find((v) => !v.isDeleteMarker) : undefined;
  return { marker, restores } satisfies Found;
}

export function DeleteMarkerPanel({ bucket, objectKey, versionId, onUndeleted }: Props) {
  const found = useResource(
    (signal) => findMarker({ bucket, key: objectKey, versionId }, signal),
    [bucket, objectKey, versionId],
  );
  const [confirming, setConfirming] = useState<ObjectVersion>();
  const { notify } = useToast();
  return (
    <Loaded resource={found} feature="Versions">
      {({ marker, restores }) =>
        marker === undefined ? (
          <p className="note note-info">
            {versionId ? 'This version does not exist.' : 'This key has no current version.'}
          </p>
        ) : (
          <div className="stack" data-testid="delete-marker">
            <p className="note note-info">
              This is a <strong>delete marker</strong>: a placeholder a delete leaves in a versioned bucket. It has no
              content; while it is the newest version, the object is hidden from listings and a GET answers 404. The
              earlier versions are kept.
            </p>
            <Facts
              items={[
                ['Deleted', formatTime(marker.lastModified)],
                [
                  'Marker version',
                  <span key="m" className="mono break">
                    {marker.versionId}
                  </span>,
                ],
                ['Newest version', marker.isLatest ? 'yes: the object is deleted' : 'no: a newer version exists'],
                [
                  'Undelete brings back',
                  restores
                    ? `the version of ${formatTime(restores.lastModified)} (${formatBytes(restores.size)})`
                    : 'nothing: no earlier version',
                ],
              ]}
            />
            <div className="actions">
              <Button variant="primary" icon="up" write onClick={() => setConfirming(marker)}>
                {marker.isLatest ? 'Undelete' : 'Remove this marker'}
              </Button>
            </div>
            {confirming ? (
              <ConfirmDialog
                title={marker.isLatest ? `Undelete ${objectKey}?` : 'Remove this delete marker?'}
                confirmLabel={marker.isLatest ? 'Undelete' : 'Remove marker'}
                onClose={() => setConfirming(undefined)}
                onConfirm={async () => {
                  await api.del(Api.bucket(bucket, '/objects/content'), {
                    key: objectKey,
                    versionId: confirming.versionId,
                  });
                  notify(marker.isLatest ? `${objectKey} is back.` : 'Delete marker removed.');
                  onUndeleted();
                }}
              >
                <p>
                  The delete marker <span className="mono break">{confirming.versionId}</span> is removed for good.
                  {marker.isLatest && restores
                    ? ` The version of ${formatTime(restores.lastModified)} becomes the current one again.`
                    : ''}
                  {marker.isLatest && !restores ? ' There is no earlier version, so the key stays empty.' : ''}
                  {!marker.isLatest ? ' A newer version is current, so nothing in the listing changes.' : ''}
                </p>
              </ConfirmDialog>
            ) : null}
          </div>
        )
      }
    </Loaded>
  );
}
