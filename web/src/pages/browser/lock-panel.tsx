// Retention and legal hold of one version (buckets with object lock).

import { useState } from 'react';
import { api, Api } from '../../api';
import type { ObjectInfo } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { formatTime } from '../../lib/format';
import { Button, Checkbox, SelectField, TextField, WriteFieldset } from '../../ui/controls';
import { ErrorNote, useToast } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

export function LockPanel({
  bucket,
  info,
  objectLock,
  onChanged,
}: {
  bucket: string;
  info: ObjectInfo;
  objectLock: boolean;
  onChanged: () => void;
}) {
  const [mode, setMode] = useState(info.retention?.mode ?? '');
  const [until, setUntil] = useState(info.retention?.retainUntilDate?.slice(0, 10) ?? '');
  const [bypass, setBypass] = useState(false);
  const { notify } = useToast();
  const { run, busy, error } = useAction(async (fn: () => Promise<unknown>, done: string) => {
    await fn();
    notify(done);
    onChanged();
  });
  if (!objectLock)
    return <p className="muted">This bucket has no object lock, so versions cannot carry retention or a legal hold.</p>;
  const query = { key: info.key, versionId: info.versionId };
  const saveRetention = (): Promise<boolean> =>
    run(
      () =>
        api.call('PUT', Api.bucket(bucket, '/objects/retention'), {
          query,
          json:
            mode === ''
              ? { bypassGovernance: bypass || undefined }
              : {
                  mode,
                  retainUntilDate: new Date(`${until}T00:00:00Z`).toISOString(),
                  bypassGovernance: bypass || undefined,
                },
        }),
      mode === '' ? 'Retention removed.' : 'Retention saved.',
    );
  return (
    <div className="stack">
      <Card title="Retention">
        <p>
          {info.retention ? (
            <>
              Retained in <Badge tone="info">{info.retention.mode}</Badge> mode until{' '}
              {formatTime(info.retention.retainUntilDate)}.
            </>
          ) : (
            'No retention.'
          )}
        </p>
        <WriteFieldset legend={<span className="visually-hidden">Retention</span>}>
          <div className="form-row">
            <SelectField
              label="Mode"
              value={mode}
              onChange={(e) => setMode(e.target.value)}
              options={[
                { value: '', label: 'None' },
                { value: 'GOVERNANCE', label: 'Governance' },
                { value: 'COMPLIANCE', label: 'Compliance' },
              ]}
            />
            <TextField
              label="Retain until (UTC date)"
              type="date"
              value={until}
              disabled={mode === ''}
              onChange={(e) => setUntil(e.target.value)}
            />
          </div>
          <Checkbox
            label="Bypass governance retention"
            checked={bypass}
            onChange={(e) => setBypass(e.target.checked)}
            hint="Needed to shorten or remove a GOVERNANCE retention. A COMPLIANCE retention can only be extended."
          />
        </WriteFieldset>
        <div>
          <Button
            variant="primary"
            write
            busy={busy}
            disabled={mode !== '' && until === ''}
            onClick={() => void saveRetention()}
          >
            Save retention
          </Button>
        </div>
      </Card>
      <Card title="Legal hold">
        <p>
          Legal hold is {info.legalHold ? <Badge tone="warn">on</Badge> : <Badge>off</Badge>}:{' '}
          {info.legalHold
            ? 'this version cannot be deleted until it is turned off.'
            : 'turn it on to keep this version from being deleted, with no end date.'}
        </p>
        <Button
          write
          busy={busy}
          onClick={() =>
            void run(
              () =>
                api.call('PUT', Api.bucket(bucket, '/objects/legal-hold'), {
                  query,
                  json: { status: info.legalHold ? 'OFF' : 'ON' },
                }),
              'Legal hold updated.',
            )
          }
        >
          {info.legalHold ? 'Turn legal hold off' : 'Turn legal hold on'}
        </Button>
      </Card>
      {error ? <ErrorNote message={error} /> : null}
    </div>
  );
}
