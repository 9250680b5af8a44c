// One access key: its details (rename, enable or disable), its expiry (full admins change or clear it), its
// permissions (edit, effective policy), rotate (the new secret shown once, with the connect panel), revoke, and the
// simulator (would this key be allowed this action on this object?).

import { useState } from 'react';
import { api } from '../api';
import type { AccessKey, AccessKeyWithSecret, BucketSummary, EffectivePermissions } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useResource } from '../hooks/use-resource';
import { formatTime } from '../lib/format';
import { describeExpiry, EXPIRY_CHOICES, expiryFromChoice, isExpired, type ExpiryChoice } from '../lib/key-expiry';
import { Link, navigate } from '../router';
import { Button, Checkbox, SelectField, TextField, WriteFieldset } from '../ui/controls';
import { ConfirmDialog, Dialog } from '../ui/dialog';
import { ErrorNote, Loaded, useToast } from '../ui/feedback';
import { Badge, Card, Facts, PageHeader } from '../ui/layout';
import {
  describePermissions,
  formFromPermissions,
  PermissionsEditor,
  permissionsFromForm,
  type PermissionsForm,
} from './keys/permissions-editor';
import { ConnectPanel } from './keys/connect-panel';
import { Simulator } from './keys/simulator';

function Expiry({ k, onSaved }: { k: AccessKey; onSaved: () => void }) {
  const [choice, setChoice] = useState<ExpiryChoice>(k.expiresAt ? 'date' : 'never');
  const [date, setDate] = useState(k.expiresAt ? k.expiresAt.slice(0, 10) : '');
  const { notify } = useToast();
  const {
    run: save,
    busy,
    error,
    setError,
  } = useAction(async (expiresAt: string | null) => {
    await api.patch(`/keys/${k.accessKeyId}`, { expiresAt });
    notify(expiresAt ? 'Expiry saved.' : 'The key no longer expires.');
    onSaved();
  });
  const submit = async (): Promise<void> => {
    let expiresAt;
    try {
      expiresAt = expiryFromChoice(choice, date, Date.now());
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return;
    }
    await save(expiresAt);
  };
  const now = Date.now();
  return (
    <Card title="Expiry">
      <p>
        {isExpired(k.expiresAt, now) ? <Badge tone="bad">expired</Badge> : describeExpiry(k.expiresAt, now)}
        {k.expiresAt ? <span className="muted"> ({formatTime(k.expiresAt)})</span> : null}
      </p>
      <WriteFieldset legend={<span className="visually-hidden">Change the expiry</span>}>
        <div className="form-row">
          <SelectField
            label="Expires"
            value={choice}
            onChange={(e) => setChoice(e.target.value as ExpiryChoice)}
            options={EXPIRY_CHOICES}
          />
          {choice === 'date' ? (
            <TextField
              label="Expiry date (end of day, UTC)"
              type="date"
              value={date}
              onChange={(e) => setDate(e.target.value)}
            />
          ) : null}
        </div>
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <Button variant="primary" write busy={busy} onClick={() => void submit()}>
        Save expiry
      </Button>
    </Card>
  );
}

function Details({ k, onSaved }: { k: AccessKey; onSaved: () => void }) {
  const [name, setName] = useState(k.name);
  const [description, setDescription] = useState(k.description);
  const [enabled, setEnabled] = useState(k.enabled);
  const { notify } = useToast();
  const {
    run: save,
    busy,
    error,
  } = useAction(async () => {
    await api.patch(`/keys/${k.accessKeyId}`, { name, description, enabled });
    notify('Key saved.');
    onSaved();
  });
  return (
    <Card title="Details">
      <Facts
        items={[
          [
            'Access key ID',
            <span key="id" className="mono">
              {k.accessKeyId}
            </span>,
          ],
          ['Created', `${formatTime(k.createdAt)} by ${k.createdBy}`],
          ['Last used', k.lastUsedAt ? formatTime(k.lastUsedAt) : 'never'],
          ['Updated', formatTime(k.updatedAt)],
        ]}
      />
      <WriteFieldset legend={<span className="visually-hidden">Key details</span>}>
        <div className="form-row">
          <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={128} />
          <TextField
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={1024}
          />
        </div>
        <Checkbox
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.target.checked)}
          hint="A disabled key is refused on every S3 request until enabled again."
        />
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <Button variant="primary" write busy={busy} onClick={() => void save()}>
        Save details
      </Button>
    </Card>
  );
}

function Permissions({ k, onSaved }: { k: AccessKey; onSaved: () => void }) {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const effective = useResource(
    (signal) => api.get<EffectivePermissions>(`/keys/${k.accessKeyId}/permissions`, undefined, signal),
    [k.updatedAt],
  );
  const [form, setForm] = useState<PermissionsForm>(formFromPermissions(k.permissions));
  const { notify } = useToast();
  const {
    run: save,
    busy,
    error,
  } = useAction(async () => {
    await api.patch(`/keys/${k.accessKeyId}`, { permissions: permissionsFromForm(form) });
    notify('Permissions saved; they apply to the next request.');
    onSaved();
  });
  return (
    <Card title="Permissions">
      <p>{describePermissions(k.permissions)}</p>
      <WriteFieldset legend={<span className="visually-hidden">Edit permissions</span>}>
        <PermissionsEditor form={form} onChange={setForm} buckets={(buckets.data?.buckets ?? []).map((b) => b.name)} />
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <Button variant="primary" write busy={busy} onClick={() => void save()}>
        Save permissions
      </Button>
      <h3 className="subhead">Effective policy</h3>
      <Loaded resource={effective} feature="Effective permissions">
        {(p) =>
          p.policy ? (
            <pre className="code-block" tabIndex={0} aria-label="Effective policy">
              {JSON.stringify(p.policy, null, 2)}
            </pre>
          ) : (
            <p className="muted">None: every request with this key is denied.</p>
          )
        }
      </Loaded>
    </Card>
  );
}

export default function KeyDetailPage({ params }: { params: string[] }) {
  const id = params[0] ?? '';
  const key = useResource((signal) => api.get<AccessKey>(`/keys/${encodeURIComponent(id)}`, undefined, signal), [id]);
  const [rotating, setRotating] = useState(false);
  const [rotated, setRotated] = useState<AccessKeyWithSecret>();
  const [revoking, setRevoking] = useState(false);
  const { notify } = useToast();
  return (
    <>
      <PageHeader
        title={
          key.data ? (
            <>
              Access key <span className="mono">{key.data.name}</span>
            </>
          ) : (
            'Access key'
          )
        }
        subtitle={<Link to="keys">All access keys</Link>}
        actions={
          <>
            <Button icon="refresh" write onClick={() => setRotating(true)}>
              Rotate secret
            </Button>
            <Button variant="danger" icon="trash" write onClick={() => setRevoking(true)}>
              Revoke
            </Button>
          </>
        }
      />
      <Loaded resource={key} feature="Access key">
        {(k) => (
          <>
            <p>{k.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</p>
            <div className="grid-2">
              <Details key={`d-${k.updatedAt}`} k={k} onSaved={key.reload} />
              <Simulator accessKeyId={k.accessKeyId} defaultBucket={k.permissions?.scope?.bucket ?? ''} />
            </div>
            <Expiry key={`e-${k.updatedAt}`} k={k} onSaved={key.reload} />
            <Permissions key={`p-${k.updatedAt}`} k={k} onSaved={key.reload} />
          </>
        )}
      </Loaded>
      {rotating ? (
        <ConfirmDialog
          title="Rotate the secret?"
          confirmLabel="Rotate secret"
          onClose={() => setRotating(false)}
          onConfirm={async () => {
            setRotated(await api.post<AccessKeyWithSecret>(`/keys/${id}/rotate`));
            key.reload();
          }}
        >
          <p>
            A new secret is issued and the old one stops working at once. Clients using this key need the new secret.
          </p>
        </ConfirmDialog>
      ) : null}
      {rotated ? (
        <Dialog
          title="New secret"
          wide
          onClose={() => setRotated(undefined)}
          footer={
            <Button variant="primary" onClick={() => setRotated(undefined)}>
              Done
            </Button>
          }
        >
          <ConnectPanel issued={rotated} />
        </Dialog>
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title="Revoke this key?"
          confirmLabel="Revoke key"
          danger
          typeToConfirm={key.data?.name ?? id}
          onClose={() => setRevoking(false)}
          onConfirm={async () => {
            await api.del(`/keys/${id}`);
            notify('Access key revoked.');
            navigate('keys');
          }}
        >
          <p>The key stops working at once and cannot be restored.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
