// Versioning (enable, suspend) and object lock (turn on for good; default retention).

import { useState } from 'react';
import { getConfig, putConfig } from '../../api/configs';
import type { BucketDetails, ObjectLockConfig } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { Button, SelectField, TextField, WriteFieldset } from '../../ui/controls';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

function DefaultRetention({
  bucket,
  config,
  onSaved,
}: {
  bucket: string;
  config: ObjectLockConfig;
  onSaved: () => void;
}) {
  const current = config.defaultRetention;
  const [mode, setMode] = useState<string>(current?.mode ?? '');
  const [unit, setUnit] = useState<'days' | 'years'>(current?.years !== undefined ? 'years' : 'days');
  const [amount, setAmount] = useState(String(current?.years ?? current?.days ?? ''));
  const { notify } = useToast();
  const {
    run: put,
    busy,
    error,
    setError,
  } = useAction(async (n: number) => {
    await putConfig(
      bucket,
      'object-lock',
      mode === '' ? { enabled: true } : { enabled: true, defaultRetention: { mode, [unit]: n } },
    );
    notify('Default retention saved.');
    onSaved();
  });
  const save = async (): Promise<void> => {
    setError(undefined);
    const n = Number(amount);
    if (mode !== '' && (!Number.isInteger(n) || n < 1)) {
      setError('Enter a whole number of days or years, at least 1.');
      return;
    }
    await put(n);
  };
  return (
    <div className="stack">
      <WriteFieldset legend="Default retention for new versions">
        <div className="form-row">
          <SelectField
            label="Mode"
            value={mode}
            onChange={(e) => setMode(e.target.value)}
            options={[
              { value: '', label: 'None' },
              { value: 'GOVERNANCE', label: 'Governance (full admins may lift it)' },
              { value: 'COMPLIANCE', label: 'Compliance (nobody can shorten it)' },
            ]}
          />
          <TextField
            label="Period"
            type="number"
            min={1}
            value={amount}
            disabled={mode === ''}
            onChange={(e) => setAmount(e.target.value)}
          />
          <SelectField
            label="Unit"
            value={unit}
            disabled={mode === ''}
            onChange={(e) => setUnit(e.target.value === 'years' ? 'years' : 'days')}
            options={[
              { value: 'days', label: 'Days' },
              { value: 'years', label: 'Years' },
            ]}
          />
        </div>
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <div>
        <Button variant="primary" write busy={busy} onClick={() => void save()}>
          Save default retention
        </Button>
      </div>
    </div>
  );
}

export function VersioningSettings({ bucket, onChanged }: { bucket: BucketDetails; onChanged: () => void }) {
  const lock = useResource((signal) => getConfig<ObjectLockConfig>(bucket.name, 'object-lock', signal), [bucket.name]);
  const [confirm, setConfirm] = useState<'Enabled' | 'Suspended' | 'lock'>();
  const { notify } = useToast();
  return (
    <>
      <Card title="Versioning">
        <p>
          Versioning is{' '}
          <Badge tone={bucket.versioning === 'Enabled' ? 'ok' : bucket.versioning === 'Suspended' ? 'warn' : 'neutral'}>
            {bucket.versioning}
          </Badge>
        </p>
        <p className="muted">
          With versioning on, overwrites and deletes keep the earlier versions; you can see, download and restore them
          in the object browser.
        </p>
        <div className="actions">
          {bucket.versioning !== 'Enabled' ? (
            <Button variant="primary" write onClick={() => setConfirm('Enabled')}>
              Enable versioning
            </Button>
          ) : null}
          {bucket.versioning === 'Enabled' && !bucket.objectLock ? (
            <Button write onClick={() => setConfirm('Suspended')}>
              Suspend versioning
            </Button>
          ) : null}
        </div>
        {bucket.objectLock ? <p className="hint">A bucket with object lock keeps versioning on for good.</p> : null}
      </Card>
      <Card title="Object lock">
        <Loaded resource={lock} feature="Object lock">
          {(config) =>
            config === null || !bucket.objectLock ? (
              <>
                <p>
                  Object lock is <Badge>off</Badge>.
                </p>
                <p className="muted">
                  Object lock lets you protect versions from deletion with retention periods and legal holds. Once on,
                  it cannot be turned off.
                </p>
                {bucket.versioning === 'Enabled' ? (
                  <Button write onClick={() => setConfirm('lock')}>
                    Turn on object lock
                  </Button>
                ) : (
                  <p className="hint">Enable versioning first.</p>
                )}
              </>
            ) : (
              <>
                <p>
                  Object lock is <Badge tone="ok">on</Badge>.
                </p>
                <DefaultRetention bucket={bucket.name} config={config} onSaved={lock.reload} />
              </>
            )
          }
        </Loaded>
      </Card>
      {confirm ? (
        <ConfirmDialog
          title={
            confirm === 'lock'
              ? 'Turn on object lock?'
              : confirm === 'Enabled'
                ? 'Enable versioning?'
                : 'Suspend versioning?'
          }
          confirmLabel={
            confirm === 'lock'
              ? 'Turn on object lock'
              : confirm === 'Enabled'
                ? 'Enable versioning'
                : 'Suspend versioning'
          }
          onClose={() => setConfirm(undefined)}
          onConfirm={async () => {
            if (confirm === 'lock') await putConfig(bucket.name, 'object-lock', { enabled: true });
            else await putConfig(bucket.name, 'versioning', { status: confirm });
            notify('Saved.');
            lock.reload();
            onChanged();
          }}
        >
          {confirm === 'lock' ? (
            <p>Object lock cannot be turned off again for this bucket.</p>
          ) : confirm === 'Enabled' ? (
            <p>
              From now on every overwrite and delete keeps the earlier version. Once enabled, versioning can be
              suspended but never removed.
            </p>
          ) : (
            <p>New writes will replace the current version (versions already kept stay).</p>
          )}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
