// The live share links the signed-in admin may see (full admins all, read-only admins their own), optionally only
// those of one object, each with its creator and expiry and a Revoke button (docs/console.md "Share links").

import { useState } from 'react';
import { api } from '../../api';
import type { ShareLink } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { useSession } from '../../hooks/use-session';
import { formatTime } from '../../lib/format';
import { describeExpiry } from '../../lib/key-expiry';
import { Button } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Card, TableWrap } from '../../ui/layout';

function RevokeDialog({ link, onClose, onDone }: { link: ShareLink; onClose: () => void; onDone: () => void }) {
  const { notify } = useToast();
  const { run, busy, error } = useAction(async () => {
    await api.del(`/share-links/${link.id}`);
    notify('Share link revoked.');
    onDone();
    onClose();
  });
  return (
    <Dialog
      title="Revoke this share link?"
      onClose={onClose}
      onSubmit={() => void run()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" busy={busy}>
            Revoke link
          </Button>
        </>
      }
    >
      <p>
        The link to <span className="mono">{link.key}</span> stops working at once: anyone holding it gets 403.
      </p>
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}

export function ShareLinksTable({
  title,
  bucket,
  objectKey,
  reloadKey = 0,
}: {
  title: string;
  bucket?: string;
  objectKey?: string;
  /** Changing it reloads the list (after a link was created). */
  reloadKey?: number;
}) {
  const links = useResource(
    (signal) => api.get<{ items: ShareLink[] }>('/share-links', { bucket, key: objectKey }, signal),
    [bucket, objectKey, reloadKey],
  );
  const me = useSession().me;
  const [revoking, setRevoking] = useState<ShareLink>();
  const mayRevoke = (l: ShareLink): boolean => me?.role === 'full-admin' || l.createdBy === me?.username;
  const now = Date.now();
  return (
    <Card title={title}>
      <Loaded resource={links} feature="Share links">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No live share links.</Empty>
          ) : (
            <TableWrap label={title}>
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Object</th>
                    <th scope="col">Method</th>
                    <th scope="col">Created by</th>
                    <th scope="col">Expires</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.items.map((l) => (
                    <tr key={l.id}>
                      <th scope="row" className="mono">
                        {l.bucket}/{l.key}
                        {l.versionId ? <span className="muted"> (version {l.versionId})</span> : null}
                      </th>
                      <td>{l.method}</td>
                      <td>
                        {l.createdBy} <span className="muted">{formatTime(l.createdAt)}</span>
                      </td>
                      <td title={formatTime(l.expiresAt)}>{describeExpiry(l.expiresAt, now)}</td>
                      <td>
                        {mayRevoke(l) ? (
                          <Button
                            variant="danger"
                            onClick={() => setRevoking(l)}
                            aria-label={`Revoke link to ${l.key}`}
                          >
                            Revoke
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
      {revoking ? <RevokeDialog link={revoking} onClose={() => setRevoking(undefined)} onDone={links.reload} /> : null}
    </Card>
  );
}
