// Multipart uploads in progress: they hold storage and keep a bucket from being deleted, so they can be aborted.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { Upload } from '../../api/types';
import { useResource } from '../../hooks/use-resource';
import { formatTime } from '../../lib/format';
import { Button } from '../../ui/controls';
import { ConfirmDialog } from '../../ui/dialog';
import { Empty, Loaded, useToast } from '../../ui/feedback';
import { Card, TableWrap } from '../../ui/layout';

export function UnfinishedUploads({ bucket }: { bucket: string }) {
  const [cursor, setCursor] = useState<string>();
  const uploads = useResource(
    (signal) =>
      api.get<{ uploads: Upload[]; nextCursor?: string }>(
        Api.bucket(bucket, '/uploads'),
        { cursor, limit: 100 },
        signal,
      ),
    [bucket, cursor],
  );
  const [aborting, setAborting] = useState<Upload>();
  const { notify } = useToast();
  return (
    <Card
      title="Unfinished multipart uploads"
      actions={
        <Button icon="refresh" onClick={uploads.reload}>
          Refresh
        </Button>
      }
    >
      <p className="muted">
        Uploads that were started and never completed or aborted. Their parts take space, and a bucket with any of them
        cannot be deleted.
      </p>
      <Loaded resource={uploads} feature="Uploads">
        {(d) =>
          d.uploads.length === 0 ? (
            <Empty>No unfinished uploads.</Empty>
          ) : (
            <>
              <TableWrap label="Unfinished uploads">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">Started</th>
                      <th scope="col">Upload id</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.uploads.map((u) => (
                      <tr key={u.uploadId}>
                        <td className="mono break">{u.key}</td>
                        <td>{formatTime(u.initiated)}</td>
                        <td className="mono">{u.uploadId.slice(0, 12)}…</td>
                        <td className="row-actions">
                          <Button
                            variant="ghost"
                            write
                            onClick={() => setAborting(u)}
                            aria-label={`Abort the upload of ${u.key}`}
                          >
                            Abort
                          </Button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              {d.nextCursor ? <Button onClick={() => setCursor(d.nextCursor)}>Next page</Button> : null}
            </>
          )
        }
      </Loaded>
      {aborting ? (
        <ConfirmDialog
          title="Abort this upload?"
          confirmLabel="Abort upload"
          danger
          onClose={() => setAborting(undefined)}
          onConfirm={async () => {
            await api.del(Api.bucket(bucket, '/uploads'), { key: aborting.key, uploadId: aborting.uploadId });
            notify('Upload aborted.');
            uploads.reload();
          }}
        >
          <p>
            The parts already uploaded for <span className="mono">{aborting.key}</span> are deleted.
          </p>
        </ConfirmDialog>
      ) : null}
    </Card>
  );
}
