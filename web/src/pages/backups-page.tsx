// Backups: download a snapshot (the instance or one bucket), restore from a .zip file (after a confirmation that
// says what a restore resets), and the backup schedule's status with "run now".

import { useRef, useState } from 'react';
import { api, Api, transfers } from '../api';
import { describeError } from '../api/errors';
import type { BackupSchedule, BucketSummary, InstanceRestored } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useInterval, useResource } from '../hooks/use-resource';
import { useCanWrite } from '../hooks/use-session';
import { formatBytes, formatCount, formatTime } from '../lib/format';
import { Button, Checkbox, SelectField } from '../ui/controls';
import { ConfirmDialog } from '../ui/dialog';
import { ErrorNote, Loaded, useToast } from '../ui/feedback';
import { Badge, Card, Facts, PageHeader } from '../ui/layout';

function Schedule() {
  const schedule = useResource((signal) => api.get<BackupSchedule>('/backup/schedule', undefined, signal), []);
  const { notify } = useToast();
  useInterval(schedule.reload, 3000, schedule.data?.running === true);
  const {
    run: runNow,
    busy,
    error,
  } = useAction(async () => {
    const res = await api.post<{ started?: boolean }>('/backup/schedule/run-now');
    notify(res?.started === false ? 'A snapshot is already running; this joined it.' : 'Snapshot started.');
    schedule.reload();
  });
  return (
    <Card
      title="Scheduled snapshots"
      actions={
        schedule.notAvailable ? null : (
          <Button variant="primary" write busy={busy} onClick={() => void runNow()}>
            Run now
          </Button>
        )
      }
    >
      <Loaded resource={schedule} feature="Backup schedule">
        {(s) => {
          const p = s.policy ?? {};
          return (
            <Facts
              items={[
                [
                  'Schedule',
                  s.enabled ? (
                    <Badge key="s" tone="ok">
                      on
                    </Badge>
                  ) : (
                    <Badge key="s">off</Badge>
                  ),
                ],
                [
                  'State',
                  s.running ? (
                    <Badge key="r" tone="info">
                      running
                    </Badge>
                  ) : (
                    'idle'
                  ),
                ],
                [
                  'When',
                  p.cron ? (
                    <span key="c" className="mono">
                      {p.cron}
                    </span>
                  ) : p.intervalMinutes ? (
                    `every ${p.intervalMinutes} minutes`
                  ) : (
                    '–'
                  ),
                ],
                [
                  'Scope',
                  p.scope === 'buckets'
                    ? 'one archive per bucket'
                    : p.scope === 'instance'
                      ? 'the whole instance'
                      : '–',
                ],
                [
                  'Retention',
                  `keep the newest ${p.keepLast ?? '–'}, and everything younger than ${p.maxAgeDays ?? '–'} days`,
                ],
                ['Copied to the replication target', p.pushToReplication ? 'yes' : 'no'],
                ['Snapshots kept', `${formatCount(s.snapshots?.count ?? 0)} (${formatBytes(s.snapshots?.bytes ?? 0)})`],
                ['Newest', formatTime(s.snapshots?.newestAt)],
                ['Next run', formatTime(s.nextRunAt)],
                [
                  'Last run',
                  s.lastRun
                    ? `${formatTime(s.lastRun.finishedAt)}: ${s.lastRun.result ?? ''}${s.lastRun.error ? ` (${s.lastRun.error})` : ''}`
                    : 'never',
                ],
                [
                  'Runs',
                  `${formatCount(s.runs?.succeeded ?? 0)} succeeded, ${formatCount(s.runs?.failed ?? 0)} failed`,
                ],
              ]}
            />
          );
        }}
      </Loaded>
      {error ? <ErrorNote message={error} /> : null}
    </Card>
  );
}

function Download({ buckets }: { buckets: string[] }) {
  const [bucket, setBucket] = useState('');
  const [progress, setProgress] = useState<string>();
  const [error, setError] = useState<string>();
  const download = async (): Promise<void> => {
    setError(undefined);
    setProgress('Starting…');
    try {
      const path = bucket ? Api.bucket(bucket, '/backup') : '/backup';
      const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
      await transfers.download({ path, query: {} }, `store-${bucket ? `bucket-${bucket}` : 'instance'}-${stamp}.zip`, {
        onProgress: (p) => setProgress(`${formatBytes(p.loaded)} received`),
      });
      setProgress(undefined);
    } catch (err) {
      setError(describeError(err));
      setProgress(undefined);
    }
  };
  return (
    <Card title="Download a snapshot">
      <p className="muted">
        A .zip of every object version and each bucket's configuration, decrypted. Keep it as safe as the data itself.
      </p>
      <SelectField
        label="What"
        value={bucket}
        onChange={(e) => setBucket(e.target.value)}
        options={[
          { value: '', label: 'The whole instance' },
          ...buckets.map((b) => ({ value: b, label: `Bucket ${b}` })),
        ]}
      />
      <Button variant="primary" icon="download" busy={progress !== undefined} onClick={() => void download()}>
        {progress ?? 'Download snapshot'}
      </Button>
      {error ? <ErrorNote message={error} /> : null}
    </Card>
  );
}

function Restore({ buckets }: { buckets: string[] }) {
  const [target, setTarget] = useState('');
  const [file, setFile] = useState<File>();
  const [bypass, setBypass] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const { notify } = useToast();
  return (
    <Card title="Restore from a snapshot">
      <p className="note note-warn">
        A restore is not a merge. Restoring the instance <strong>resets everything</strong> to the archive: buckets,
        objects and versions it does not hold are deleted. Restoring a bucket resets that bucket.
      </p>
      <SelectField
        label="Restore into"
        value={target}
        onChange={(e) => setTarget(e.target.value)}
        disabled={buckets.length === 0 && target !== ''}
        options={[
          { value: '', label: 'The whole instance (resets everything)' },
          ...buckets.map((b) => ({ value: b, label: `Bucket ${b} (resets this bucket)` })),
        ]}
      />
      <div className="field">
        <label htmlFor="restore-file">Snapshot file (.zip)</label>
        <input
          id="restore-file"
          ref={input}
          className="input"
          type="file"
          accept=".zip,application/zip"
          data-write=""
          onChange={(e) => setFile(e.target.files?.[0])}
        />
      </div>
      <Checkbox
        label="Bypass governance retention"
        checked={bypass}
        onChange={(e) => setBypass(e.target.checked)}
        hint="Lets the reset remove versions under GOVERNANCE retention (never COMPLIANCE or a legal hold)."
      />
      <Button variant="danger" write disabled={!file} onClick={() => setConfirming(true)}>
        Restore…
      </Button>
      {confirming && file ? (
        <ConfirmDialog
          title={target ? `Reset bucket ${target} to this snapshot?` : 'Reset the whole instance to this snapshot?'}
          confirmLabel="Restore and reset"
          danger
          typeToConfirm={target ? target : 'RESET'}
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            const res = await api.call<InstanceRestored>('POST', target ? Api.bucket(target, '/restore') : '/restore', {
              body: file,
              headers: { 'content-type': 'application/zip' },
              query: { bypassGovernance: bypass || undefined },
            });
            notify(
              `Restored ${res.bucketsRestored !== undefined ? `${formatCount(res.bucketsRestored)} buckets, ` : ''}${formatCount(res.objectsRestored ?? 0)} object versions.`,
            );
            setFile(undefined);
            if (input.current) input.current.value = '';
          }}
        >
          <p>
            {target
              ? `Everything in bucket ${target} that is not in ${file.name} will be deleted.`
              : `Every bucket, object and version that is not in ${file.name} will be deleted. This resets everything.`}
          </p>
          <p>
            File: <span className="mono">{file.name}</span> ({formatBytes(file.size)})
          </p>
        </ConfirmDialog>
      ) : null}
    </Card>
  );
}

export default function BackupsPage() {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const names = (buckets.data?.buckets ?? []).map((b) => b.name);
  return (
    <>
      <PageHeader title="Backups" subtitle="Portable .zip snapshots: download one, restore one, and the schedule." />
      <Schedule />
      <div className="grid-2">
        <Download buckets={names} />
        <RestoreOrNote buckets={names} />
      </div>
    </>
  );
}

/** The restore form is for full admins only: a read-only admin sees what it does, not the form. */
function RestoreOrNote({ buckets }: { buckets: string[] }) {
  const canWrite = useCanWrite();
  if (!canWrite) {
    return (
      <Card title="Restore from a snapshot">
        <p className="muted">
          Only full admins can restore. A restore resets the instance (or a bucket) to exactly the archive's contents.
        </p>
      </Card>
    );
  }
  return <Restore buckets={buckets} />;
}
