// Replication: status (enabled, target check, outbox depth, last drain, tiering), the dead-lettered intents with
// retry, and reconcile (scan local against remote and re-enqueue what is missing) with the job's progress.

import { useState } from 'react';
import { api } from '../api';
import { describeError } from '../api/errors';
import type { BucketSummary, ReconcileJob, ReplicationFailedPage, ReplicationStatus } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useInterval, useResource } from '../hooks/use-resource';
import { formatCount, formatDuration, formatTime } from '../lib/format';
import { replicationHealth } from '../lib/health';
import { Button, SelectField } from '../ui/controls';
import { Empty, ErrorNote, Loaded, NotAvailable, useToast } from '../ui/feedback';
import { Badge, Card, Facts, PageHeader, Stat, TableWrap } from '../ui/layout';

function Status({ s }: { s: ReplicationStatus }) {
  // The colours follow the real state (docs/console.md, "Health"): a failed drain is red, a backlog amber.
  const health = replicationHealth(s, Date.now());
  const pending = (s.outbox?.pending ?? 0) + (s.outbox?.inflight ?? 0);
  return (
    <>
      <div className="stats">
        <Stat
          label="Replication"
          value={s.enabled ? `On: ${health.value.toLowerCase()}` : 'Off'}
          tone={health.tone}
          detail={s.targetBucket ? `Target bucket: ${s.targetBucket}. ${health.detail}` : health.detail}
        />
        <Stat
          label="Pending"
          value={formatCount(pending)}
          tone={pending > 0 ? (s.lastDrain?.errorClass ? 'bad' : 'warn') : s.enabled ? 'ok' : undefined}
          detail={s.oldestPendingAgeSeconds ? `Oldest ${formatDuration(s.oldestPendingAgeSeconds)}` : 'Nothing waiting'}
        />
        <Stat
          label="Failed"
          value={formatCount(s.outbox?.failed ?? 0)}
          tone={(s.outbox?.failed ?? 0) > 0 ? 'bad' : 'ok'}
          detail="Dead-lettered after the last attempt"
        />
      </div>
      <Card title="Last drain">
        <Facts
          items={[
            [
              'Result',
              s.lastDrain?.errorClass ? (
                <Badge key="r" tone="bad">
                  failed
                </Badge>
              ) : s.lastDrain?.at ? (
                <Badge key="r" tone="ok">
                  succeeded
                </Badge>
              ) : (
                'no drain yet'
              ),
            ],
            ['When', formatTime(s.lastDrain?.at)],
            ['Keys applied', formatCount(s.lastDrain?.count ?? 0)],
            [
              'Error',
              s.lastDrain?.errorClass ? (
                <Badge key="e" tone="bad">
                  {s.lastDrain.errorClass}
                </Badge>
              ) : (
                'none'
              ),
            ],
            ['Tiering', s.tiering?.enabled ? `on: ${formatCount(s.tiering.stubs ?? 0)} versions offloaded` : 'off'],
          ]}
        />
      </Card>
    </>
  );
}

function Failed() {
  const [cursor, setCursor] = useState<string>();
  const failed = useResource(
    (signal) => api.get<ReplicationFailedPage>('/replication/failed', { cursor, limit: 100 }, signal),
    [cursor],
  );
  const { notify } = useToast();
  const {
    run: retry,
    busy,
    error,
  } = useAction(async (only?: { bucket: string; key: string }) => {
    const res = await api.post<{ retried?: number }>('/replication/failed/retry', only ?? {});
    notify(`${formatCount(res?.retried ?? 0)} intents queued again.`);
    failed.reload();
  });
  return (
    <Card
      title="Failed intents"
      actions={
        failed.data && failed.data.items.length > 0 ? (
          <Button write busy={busy} onClick={() => void retry()}>
            Retry all
          </Button>
        ) : null
      }
    >
      <Loaded resource={failed} feature="Failed replication intents">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No failed intents.</Empty>
          ) : (
            <>
              <TableWrap label="Failed intents">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Bucket</th>
                      <th scope="col">Key</th>
                      <th scope="col" className="num">
                        Attempts
                      </th>
                      <th scope="col">Error</th>
                      <th scope="col">Failed</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.items.map((i) => (
                      <tr key={`${i.bucket}/${i.key}`}>
                        <td>{i.bucket}</td>
                        <td className="mono break">{i.key}</td>
                        <td className="num">{i.attempts ?? '–'}</td>
                        <td>{i.lastError ?? '–'}</td>
                        <td>{formatTime(i.failedAt)}</td>
                        <td className="row-actions">
                          <Button
                            variant="ghost"
                            write
                            busy={busy}
                            onClick={() => void retry({ bucket: i.bucket, key: i.key })}
                            aria-label={`Retry ${i.bucket}/${i.key}`}
                          >
                            Retry
                          </Button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              {d.nextCursor ? <Button onClick={() => setCursor(d.nextCursor ?? undefined)}>Next page</Button> : null}
            </>
          )
        }
      </Loaded>
      {error ? <ErrorNote message={error} /> : null}
    </Card>
  );
}

function Reconcile({ buckets }: { buckets: string[] }) {
  const [bucket, setBucket] = useState('');
  const [job, setJob] = useState<ReconcileJob>();
  const {
    run: start,
    busy,
    error,
    setError,
  } = useAction(async () => {
    setJob(await api.post<ReconcileJob>('/replication/reconcile', bucket ? { bucket } : {}));
  });
  const running = job !== undefined && (job.state === 'running' || job.state === undefined);
  useInterval(
    () => {
      if (!job) return;
      api
        .get<ReconcileJob>(`/replication/reconcile/${encodeURIComponent(job.id)}`)
        .then(setJob, (err: unknown) => setError(describeError(err)));
    },
    1000,
    running,
  );
  return (
    <Card title="Reconcile">
      <p className="muted">
        Compares every local object with the target and queues whatever is missing or different. One job runs at a time.
      </p>
      <div className="form-row">
        <SelectField
          label="Scope"
          value={bucket}
          onChange={(e) => setBucket(e.target.value)}
          options={[{ value: '', label: 'Every bucket' }, ...buckets.map((b) => ({ value: b, label: b }))]}
        />
      </div>
      <Button variant="primary" write busy={busy || running} onClick={() => void start()}>
        Start reconcile
      </Button>
      {error ? <ErrorNote message={error} /> : null}
      {job ? (
        <div className="stack-sm" role="status">
          <p>
            Job <span className="mono">{job.id}</span>:{' '}
            <Badge tone={job.state === 'failed' ? 'bad' : job.state === 'completed' ? 'ok' : 'info'}>
              {job.state ?? 'started'}
            </Badge>
          </p>
          <p>
            {formatCount(job.scanned ?? 0)} keys compared, {formatCount(job.enqueued ?? 0)} queued,{' '}
            {formatCount(job.errors ?? 0)} errors{job.error ? ` (${job.error})` : ''}.
          </p>
          {running ? <progress aria-label="Reconcile in progress" /> : null}
        </div>
      ) : null}
    </Card>
  );
}

export default function ReplicationPage() {
  const status = useResource((signal) => api.get<ReplicationStatus>('/replication/status', undefined, signal), []);
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  useInterval(status.reload, 5000, !status.notAvailable);
  return (
    <>
      <PageHeader
        title="Replication"
        subtitle="Every committed write and delete, mirrored one way to the remote target."
        actions={
          <Button icon="refresh" onClick={status.reload}>
            Refresh
          </Button>
        }
      />
      {status.notAvailable ? (
        <NotAvailable feature="Replication" />
      ) : (
        <>
          <Loaded resource={status} feature="Replication">
            {(s) => <Status s={s} />}
          </Loaded>
          <Failed />
          <Reconcile buckets={(buckets.data?.buckets ?? []).map((b) => b.name)} />
        </>
      )}
    </>
  );
}
