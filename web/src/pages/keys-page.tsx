// Access keys: the list (with each key's expiry), creation with a scope editor (one bucket, an optional prefix, chosen
// actions) or an inline policy and an optional expiry; then the connect panel (the secret shown once, downloads,
// client snippets). Below, the share links the admin may see.

import { useState } from 'react';
import { api } from '../api';
import { describeError } from '../api/errors';
import type { AccessKey, AccessKeyWithSecret, BucketSummary, KeyPermissions } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useResource } from '../hooks/use-resource';
import { formatTime } from '../lib/format';
import { describeExpiry, EXPIRY_CHOICES, expiryFromChoice, isExpired, type ExpiryChoice } from '../lib/key-expiry';
import { Link } from '../router';
import { Button, SelectField, TextField } from '../ui/controls';
import { Dialog } from '../ui/dialog';
import { Empty, ErrorNote, Loaded, useToast } from '../ui/feedback';
import { Badge, PageHeader, TableWrap } from '../ui/layout';
import { ConnectPanel } from './keys/connect-panel';
import { ShareLinksTable } from './keys/share-links-table';
import {
  describePermissions,
  PermissionsEditor,
  permissionsFromForm,
  type PermissionsForm,
} from './keys/permissions-editor';

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [perms, setPerms] = useState<PermissionsForm>({
    mode: 'scope',
    bucket: '',
    prefix: '',
    actions: ['GetObject', 'PutObject', 'DeleteObject', 'ListBucket'],
    policy: '',
  });
  const [expiry, setExpiry] = useState<ExpiryChoice>('never');
  const [expiryDate, setExpiryDate] = useState('');
  const [created, setCreated] = useState<AccessKeyWithSecret>();
  const {
    run: create,
    busy,
    error,
    setError,
  } = useAction(async (body: { permissions: KeyPermissions | null; expiresAt: string | null }) => {
    setCreated(await api.post<AccessKeyWithSecret>('/keys', { name: name.trim(), description, ...body }));
    onCreated();
  });
  const submit = async (): Promise<void> => {
    setError(undefined);
    let permissions;
    let expiresAt;
    try {
      permissions = permissionsFromForm(perms);
      expiresAt = expiryFromChoice(expiry, expiryDate, Date.now());
    } catch (err) {
      setError(err instanceof Error ? err.message : describeError(err));
      return;
    }
    if (name.trim() === '') {
      setError('Name: give the key a name.');
      return;
    }
    await create({ permissions, expiresAt });
  };
  if (created) {
    return (
      <Dialog
        title="Access key created"
        wide
        onClose={onClose}
        footer={
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        }
      >
        <p className="muted">
          {describePermissions(created.permissions)} ·{' '}
          {created.expiresAt ? `Expires ${formatTime(created.expiresAt)}` : 'Never expires'}
        </p>
        <ConnectPanel issued={created} />
      </Dialog>
    );
  }
  return (
    <Dialog
      title="Create an access key"
      wide
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" write busy={busy}>
            Create key
          </Button>
        </>
      }
    >
      <div className="form-row">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} autoFocus maxLength={128} />
        <TextField
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={1024}
        />
      </div>
      <PermissionsEditor form={perms} onChange={setPerms} buckets={(buckets.data?.buckets ?? []).map((b) => b.name)} />
      <div className="form-row">
        <SelectField
          label="Expires"
          value={expiry}
          onChange={(e) => setExpiry(e.target.value as ExpiryChoice)}
          options={EXPIRY_CHOICES}
          hint="An expired key is refused on every S3 request (InvalidAccessKeyId)."
        />
        {expiry === 'date' ? (
          <TextField
            label="Expiry date (end of day, UTC)"
            type="date"
            value={expiryDate}
            onChange={(e) => setExpiryDate(e.target.value)}
          />
        ) : null}
      </div>
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}

export default function KeysPage() {
  const keys = useResource((signal) => api.get<{ items: AccessKey[] }>('/keys', undefined, signal), []);
  const [creating, setCreating] = useState(false);
  const { notify } = useToast();
  return (
    <>
      <PageHeader
        title="Access keys"
        subtitle="Keys for S3 clients, each limited to what it needs."
        actions={
          <>
            <Button icon="refresh" onClick={keys.reload}>
              Refresh
            </Button>
            <Button variant="primary" icon="plus" write onClick={() => setCreating(true)}>
              Create access key
            </Button>
          </>
        }
      />
      <Loaded resource={keys} feature="Access keys">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No access keys yet (the root key from the configuration always works).</Empty>
          ) : (
            <TableWrap label="Access keys">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Access key ID</th>
                    <th scope="col">Permissions</th>
                    <th scope="col">State</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {d.items.map((k) => (
                    <tr key={k.accessKeyId}>
                      <th scope="row">
                        <Link to={`keys/${k.accessKeyId}`}>{k.name}</Link>
                      </th>
                      <td className="mono">{k.accessKeyId}</td>
                      <td>{describePermissions(k.permissions)}</td>
                      <td>{k.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</td>
                      <td title={k.expiresAt ? formatTime(k.expiresAt) : undefined}>
                        {isExpired(k.expiresAt, Date.now()) ? (
                          <Badge tone="bad">expired</Badge>
                        ) : (
                          describeExpiry(k.expiresAt, Date.now())
                        )}
                      </td>
                      <td>{k.lastUsedAt ? formatTime(k.lastUsedAt) : 'never'}</td>
                      <td>
                        {formatTime(k.createdAt)} <span className="muted">by {k.createdBy}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
      <ShareLinksTable title="Share links" />
      {creating ? (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={() => {
            notify('Access key created.');
            keys.reload();
          }}
        />
      ) : null}
    </>
  );
}
