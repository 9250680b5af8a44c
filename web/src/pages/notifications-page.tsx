// Notification targets (docs/console.md "Notifications"): each target's kind, ARN (to copy into a bucket's Events
// tab or an S3 client), delivery status coloured by the real state, and its dead letters (?deadLetters=<id>, kept in
// the URL). Full admins add, edit and delete targets and retry dead letters; read-only admins see the same without
// the buttons. The status is fetched again every 2 s.

import { useState } from 'react';
import { api } from '../api';
import type { NotificationTarget } from '../api/types';
import { useInterval, useResource } from '../hooks/use-resource';
import { formatCount, formatDuration } from '../lib/format';
import { TARGET_KIND_LABELS, targetHealth } from '../lib/notifications';
import { setQuery, useLocation } from '../router';
import { Button } from '../ui/controls';
import { CopyButton } from '../ui/copy';
import { ConfirmDialog } from '../ui/dialog';
import { Empty, Loaded, useToast } from '../ui/feedback';
import { Badge, Card, Facts, PageHeader, Stat } from '../ui/layout';
import { DeadLetters } from './notifications/dead-letters';
import { TargetDialog } from './notifications/target-dialog';

/** Where a target sends, in words (never a secret: the server does not return them). */
function destination(t: NotificationTarget): string {
  const c = t.config;
  const text = (name: string): string => (typeof c[name] === 'string' ? (c[name] as string) : '');
  switch (t.kind) {
    case 'webhook':
      return text('endpoint');
    case 'redis':
      return `${text('url')}, ${text('format') || 'list'} ${text('key')}`;
    case 'nats':
      return `${text('url')}, subject ${text('subject')}`;
    case 'amqp':
      return `${text('url')}, exchange "${text('exchange')}", routing key "${text('routingKey')}"`;
    case 'mqtt':
      return `${text('url')}, topic ${text('topic')}`;
    case 'postgres':
      return `${text('host')}:${String(c['port'] ?? 5432)}/${text('database')}, table ${text('table')} (${text('format')})`;
  }
}

function TargetCard(props: {
  target: NotificationTarget;
  showLetters: boolean;
  onEdit: () => void;
  onDelete: () => void;
  onChanged: () => void;
}) {
  const { target: t, showLetters, onEdit, onDelete, onChanged } = props;
  const s = t.status;
  const health = targetHealth(s);
  return (
    <Card
      className="target-card"
      title={
        <>
          <span className="mono">{t.id}</span> <Badge tone="info">{TARGET_KIND_LABELS[t.kind]}</Badge>
        </>
      }
      actions={
        <>
          <Button
            variant="ghost"
            aria-expanded={showLetters}
            onClick={() => setQuery({ deadLetters: showLetters ? undefined : t.id })}
          >
            {showLetters ? 'Hide dead letters' : 'Dead letters'}
          </Button>
          <Button write onClick={onEdit}>
            Edit
          </Button>
          <Button write variant="danger" onClick={onDelete}>
            Delete
          </Button>
        </>
      }
    >
      <div className="stack-sm" data-target={t.id}>
        <div className="arn-row">
          <span className="mono break" data-arn="">
            {t.arn}
          </span>
          <CopyButton text={t.arn} label="Copy ARN" />
        </div>
        <div className="stats" data-status={health.tone ?? 'none'}>
          <Stat label="Status" value={health.value} detail={health.detail} tone={health.tone} />
          <Stat
            label="Queued"
            value={formatCount(s.queued)}
            tone={s.queued > 0 ? (s.lastErrorClass ? 'bad' : 'warn') : undefined}
            detail={
              s.oldestPendingAgeSeconds === null
                ? 'Nothing waiting'
                : `Oldest ${formatDuration(s.oldestPendingAgeSeconds)}`
            }
          />
          <Stat label="Delivered" value={formatCount(s.delivered)} detail="In the last 7 days" />
          <Stat
            label="Failed"
            value={formatCount(s.failed)}
            tone={s.failed > 0 ? 'bad' : undefined}
            detail="Dead-lettered after the last attempt"
          />
        </div>
        <Facts
          items={[
            [
              'Sends to',
              <span key="d" className="mono break">
                {destination(t)}
              </span>,
            ],
            ['Secrets', t.secretsSet.length > 0 ? `${t.secretsSet.join(', ')} (set; never shown)` : 'none'],
            [
              'Last error',
              s.lastErrorClass ? (
                <Badge key="e" tone="bad">
                  {s.lastErrorClass}
                </Badge>
              ) : (
                'none'
              ),
            ],
          ]}
        />
        {showLetters ? <DeadLetters target={t.id} failed={s.failed} onRetried={onChanged} /> : null}
      </div>
    </Card>
  );
}

export default function NotificationsPage() {
  const targets = useResource(
    (signal) => api.get<{ items: NotificationTarget[] }>('/notification-targets', undefined, signal),
    [],
  );
  useInterval(targets.reload, 2000, !targets.notAvailable);
  const { query } = useLocation();
  const letters = query.get('deadLetters') ?? undefined;
  const [editing, setEditing] = useState<NotificationTarget | 'new'>();
  const [deleting, setDeleting] = useState<NotificationTarget>();
  const { notify } = useToast();
  return (
    <>
      <PageHeader
        title="Notifications"
        subtitle="Targets that buckets send S3 event notifications to. A bucket's Events tab chooses what goes where."
        actions={
          <>
            <Button icon="refresh" onClick={targets.reload}>
              Refresh
            </Button>
            <Button icon="plus" variant="primary" write onClick={() => setEditing('new')}>
              Add target
            </Button>
          </>
        }
      />
      <Loaded resource={targets} feature="Notification targets">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No notification targets yet.</Empty>
          ) : (
            <div className="stack">
              {d.items.map((t) => (
                <TargetCard
                  key={t.id}
                  target={t}
                  showLetters={letters === t.id}
                  onEdit={() => setEditing(t)}
                  onDelete={() => setDeleting(t)}
                  onChanged={targets.reload}
                />
              ))}
            </div>
          )
        }
      </Loaded>
      {editing !== undefined ? (
        <TargetDialog
          existing={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onSaved={(t) => {
            notify(editing === 'new' ? `Target ${t.id} added.` : `Target ${t.id} saved.`);
            setEditing(undefined);
            targets.reload();
          }}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete target ${deleting.id}?`}
          confirmLabel="Delete target"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            await api.del(`/notification-targets/${encodeURIComponent(deleting.id)}`);
            notify(`Target ${deleting.id} deleted.`);
            if (letters === deleting.id) setQuery({ deadLetters: undefined });
            targets.reload();
          }}
        >
          <p>
            Its {formatCount(deleting.status.queued)} queued and {formatCount(deleting.status.failed)} dead-lettered
            messages are dropped. Bucket configurations that name its ARN stay, and send nothing until a target with the
            same id and kind exists again.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
