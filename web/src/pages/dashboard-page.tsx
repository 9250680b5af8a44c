// The dashboard: totals, the per-bucket breakdown, storage over time and request/error rates, and the health of
// replication, backups, webhooks and integrity at a glance. Each part loads on its own; a part whose endpoint this
// server lacks says so and the rest still works.

import { api } from '../api';
import { describeError } from '../api/errors';
import type {
  BackupSchedule,
  BucketSummary,
  IntegrityStatus,
  ReplicationStatus,
  RequestSeries,
  StorageSeries,
  WebhookStatus,
} from '../api/types';
import { useResource, type Resource } from '../hooks/use-resource';
import { formatBytes, formatCount, formatDuration, formatPercent, formatRate, formatRelative } from '../lib/format';
import { integrityHealth, replicationHealth, type Health } from '../lib/health';
import { Link } from '../router';
import { BarList, LineChart } from '../ui/charts';
import { Loaded } from '../ui/feedback';
import { Card, PageHeader, Stat } from '../ui/layout';

const DAY = 86_400_000;

function Totals({ buckets }: { buckets: BucketSummary[] }) {
  const sum = (f: (b: BucketSummary) => number): number => buckets.reduce((n, b) => n + f(b), 0);
  return (
    <div className="stats">
      <Stat
        label="Stored"
        value={formatBytes(sum((b) => b.versionBytes))}
        detail={`${formatBytes(sum((b) => b.bytes))} in current versions`}
      />
      <Stat
        label="Objects"
        value={formatCount(sum((b) => b.objectCount))}
        detail={`${formatCount(sum((b) => b.versionCount))} versions and delete markers`}
      />
      <Stat
        label="Buckets"
        value={formatCount(buckets.length)}
        detail={`${buckets.filter((b) => b.versioning === 'Enabled').length} versioned`}
      />
    </div>
  );
}

function HealthTile<T>({
  label,
  resource,
  summarize,
  to,
}: {
  label: string;
  resource: Resource<T>;
  summarize: (d: T) => Health;
  to?: string;
}) {
  let health: Health;
  if (resource.notAvailable)
    health = { value: 'Not available', detail: "This server's admin API has no such endpoint", tone: undefined };
  else if (resource.error !== undefined)
    health = { value: 'Unknown', detail: describeError(resource.error), tone: 'warn' };
  else if (resource.data === undefined) health = { value: '…', detail: 'Loading', tone: undefined };
  else health = summarize(resource.data);
  if (to === undefined) return <Stat label={label} value={health.value} detail={health.detail} tone={health.tone} />;
  return (
    <Link to={to} className="stat-link">
      <Stat label={label} value={health.value} detail={health.detail} tone={health.tone} />
    </Link>
  );
}

function backupHealth(s: BackupSchedule): Health {
  if (!s.enabled) return { value: 'Manual', detail: 'No backup schedule configured', tone: undefined };
  const failed = s.lastRun?.result === 'failed';
  return {
    value: s.running ? 'Running' : failed ? 'Last run failed' : `${formatCount(s.snapshots?.count ?? 0)} snapshots`,
    detail: s.snapshots?.newestAt ? `Newest ${formatRelative(s.snapshots.newestAt, Date.now())}` : 'No snapshot yet',
    tone: failed ? 'bad' : (s.snapshots?.count ?? 0) > 0 ? 'ok' : 'warn',
  };
}

function webhookHealth(s: WebhookStatus): Health {
  if (!s.enabled) return { value: 'Off', detail: 'No WEBHOOK_URL configured', tone: undefined };
  return {
    value: s.counts.failed > 0 ? `${formatCount(s.counts.failed)} failed` : `${formatCount(s.counts.pending)} pending`,
    detail: s.lastError
      ? `Last error: ${s.lastError.message}`
      : s.oldestPendingAgeSeconds !== null
        ? `Oldest pending ${formatDuration(s.oldestPendingAgeSeconds)}`
        : 'Delivering',
    tone: s.counts.failed > 0 ? 'bad' : s.lastError ? 'warn' : 'ok',
  };
}

const ts = (iso: string): number => new Date(iso).getTime();

export default function DashboardPage() {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const storage = useResource(
    (signal) =>
      api.get<StorageSeries>('/analytics/storage', { from: new Date(Date.now() - 7 * DAY).toISOString() }, signal),
    [],
  );
  const requests = useResource((signal) => api.get<RequestSeries>('/analytics/requests', undefined, signal), []);
  const replication = useResource((signal) => api.get<ReplicationStatus>('/replication/status', undefined, signal), []);
  const backups = useResource((signal) => api.get<BackupSchedule>('/backup/schedule', undefined, signal), []);
  const webhooks = useResource((signal) => api.get<WebhookStatus>('/webhooks/status', undefined, signal), []);
  const integrity = useResource((signal) => api.get<IntegrityStatus>('/integrity', undefined, signal), []);

  return (
    <>
      <PageHeader title="Dashboard" subtitle="What this server holds and how it is doing." />
      <Loaded resource={buckets} feature="Buckets">
        {(d) => <Totals buckets={d.buckets} />}
      </Loaded>
      <h2 className="section-title">Health</h2>
      <div className="stats">
        <HealthTile
          label="Replication"
          resource={replication}
          summarize={(d) => replicationHealth(d, Date.now())}
          to="replication"
        />
        <HealthTile label="Backups" resource={backups} summarize={backupHealth} to="backups" />
        <HealthTile label="Webhooks" resource={webhooks} summarize={webhookHealth} />
        <HealthTile
          label="Integrity"
          resource={integrity}
          summarize={(d) => integrityHealth(d, Date.now())}
          to="integrity"
        />
      </div>
      <div className="grid-2">
        <Card title="Storage over 7 days">
          <Loaded resource={storage} feature="Storage analytics">
            {(d) => (
              <LineChart
                title="Storage over 7 days"
                bytes
                format={formatBytes}
                series={[
                  {
                    name: 'Stored bytes',
                    className: 'series-1',
                    points: (d.points ?? []).map((p) => ({ t: ts(p.t), v: p.bytes ?? null })),
                  },
                ]}
              />
            )}
          </Loaded>
        </Card>
        <Card title="Requests, last 24 hours">
          <Loaded resource={requests} feature="Request analytics">
            {(d) => (
              <>
                <LineChart
                  title="Requests per second"
                  format={formatRate}
                  series={[
                    {
                      name: 'Requests/s',
                      className: 'series-1',
                      points: (d.points ?? []).map((p) => ({ t: ts(p.t), v: p.requestsPerSecond ?? null })),
                    },
                    {
                      name: 'Errors/s',
                      className: 'series-bad',
                      points: (d.points ?? []).map((p) => ({ t: ts(p.t), v: p.errorsPerSecond ?? null })),
                    },
                  ]}
                />
                {d.totals ? (
                  <p className="muted">
                    {formatCount(d.totals.requests ?? 0)} requests,{' '}
                    {formatCount((d.totals.clientErrors ?? 0) + (d.totals.serverErrors ?? 0))} errors
                    {d.totals.requests
                      ? ` (${formatPercent(((d.totals.clientErrors ?? 0) + (d.totals.serverErrors ?? 0)) / d.totals.requests)})`
                      : ''}
                  </p>
                ) : null}
              </>
            )}
          </Loaded>
        </Card>
      </div>
      <Card title="Largest buckets" actions={<Link to="buckets">All buckets</Link>}>
        <Loaded resource={buckets} feature="Buckets">
          {(d) => (
            <BarList
              title="Bytes stored per bucket"
              format={formatBytes}
              rows={[...d.buckets]
                .sort((a, b) => b.versionBytes - a.versionBytes)
                .slice(0, 10)
                .map((b) => ({ label: b.name, value: b.versionBytes }))}
            />
          )}
        </Loaded>
      </Card>
    </>
  );
}
