// Buckets: the list with sizes and counts, create (versioning and object lock options), empty, and delete (emptied
// first, behind a typed confirmation: bucket/empty-bucket-dialog.tsx).

import { useState } from 'react';
import { api } from '../api';
import type { BucketDetails, BucketSummary } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useResource } from '../hooks/use-resource';
import { formatBytes, formatCount, formatTime } from '../lib/format';
import { bucketNameProblem } from '../lib/object-keys';
import { browseRoute, Link, navigate } from '../router';
import { Button, Checkbox, TextField } from '../ui/controls';
import { Dialog } from '../ui/dialog';
import { EmptyBucketDialog } from './bucket/empty-bucket-dialog';
import { Empty, ErrorNote, Loaded, useToast } from '../ui/feedback';
import { Badge, PageHeader, TableWrap } from '../ui/layout';

function CreateBucketDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const [versioning, setVersioning] = useState(false);
  const [objectLock, setObjectLock] = useState(false);
  const [touched, setTouched] = useState(false);
  const problem = bucketNameProblem(name);
  const {
    run: create,
    busy,
    error,
  } = useAction(async () => {
    await api.post<BucketDetails>('/buckets', { name, versioning: versioning || objectLock, objectLock });
    onCreated(name);
  });
  const submit = async (): Promise<void> => {
    setTouched(true);
    if (!problem) await create();
  };
  return (
    <Dialog
      title="Create a bucket"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy} write>
            Create bucket
          </Button>
        </>
      }
    >
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value.trim())}
        autoFocus
        autoComplete="off"
        hint="3–63 lowercase letters, digits, dots and hyphens."
        error={touched ? problem : undefined}
      />
      <Checkbox
        label="Keep every version of every object (versioning)"
        checked={versioning || objectLock}
        disabled={objectLock}
        onChange={(e) => setVersioning(e.target.checked)}
        hint="Overwrites and deletes keep the earlier versions, which you can restore."
      />
      <Checkbox
        label="Object lock"
        checked={objectLock}
        onChange={(e) => setObjectLock(e.target.checked)}
        hint="Lets you protect versions from deletion (retention, legal hold). It turns versioning on for good and cannot be turned off."
      />
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}

export default function BucketsPage() {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<{ bucket: BucketSummary; thenDelete: boolean }>();
  const { notify } = useToast();

  return (
    <>
      <PageHeader
        title="Buckets"
        subtitle="Every bucket, with what it holds."
        actions={
          <>
            <Button icon="refresh" onClick={buckets.reload}>
              Refresh
            </Button>
            <Button variant="primary" icon="plus" write onClick={() => setCreating(true)}>
              Create bucket
            </Button>
          </>
        }
      />
      <Loaded resource={buckets} feature="Buckets">
        {(d) =>
          d.buckets.length === 0 ? (
            <Empty>No buckets yet.</Empty>
          ) : (
            <TableWrap label="Buckets">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col" className="num">
                      Objects
                    </th>
                    <th scope="col" className="num">
                      Size
                    </th>
                    <th scope="col" className="num">
                      All versions
                    </th>
                    <th scope="col">Versioning</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.buckets.map((b) => (
                    <tr key={b.name}>
                      <th scope="row">
                        <Link to={browseRoute(b.name)}>{b.name}</Link>
                        {b.objectLock ? (
                          <>
                            {' '}
                            <Badge tone="info">object lock</Badge>
                          </>
                        ) : null}
                      </th>
                      <td className="num">{formatCount(b.objectCount)}</td>
                      <td className="num">{formatBytes(b.bytes)}</td>
                      <td className="num">
                        {formatBytes(b.versionBytes)} <span className="muted">({formatCount(b.versionCount)})</span>
                      </td>
                      <td>
                        <Badge
                          tone={b.versioning === 'Enabled' ? 'ok' : b.versioning === 'Suspended' ? 'warn' : 'neutral'}
                        >
                          {b.versioning}
                        </Badge>
                      </td>
                      <td>{formatTime(b.createdAt)}</td>
                      <td className="row-actions">
                        <Link to={`buckets/${encodeURIComponent(b.name)}`} className="btn btn-ghost">
                          Settings<span className="visually-hidden"> of {b.name}</span>
                        </Link>
                        <Button
                          variant="ghost"
                          write
                          onClick={() => setDeleting({ bucket: b, thenDelete: false })}
                          aria-label={`Empty bucket ${b.name}`}
                        >
                          Empty
                        </Button>
                        <Button
                          variant="ghost"
                          write
                          onClick={() => setDeleting({ bucket: b, thenDelete: true })}
                          aria-label={`Delete bucket ${b.name}`}
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
      {creating ? (
        <CreateBucketDialog
          onClose={() => setCreating(false)}
          onCreated={(name) => {
            setCreating(false);
            notify(`Bucket ${name} created.`);
            navigate(browseRoute(name));
          }}
        />
      ) : null}
      {deleting ? (
        <EmptyBucketDialog
          bucket={deleting.bucket}
          thenDelete={deleting.thenDelete}
          onClose={() => setDeleting(undefined)}
          onDone={(summary) => {
            notify(summary);
            buckets.reload();
          }}
        />
      ) : null}
    </>
  );
}
