// The bucket's Overview tab: what it holds, and each setting summarised in words (fetched fresh every time the tab
// is shown, so edits in the other tabs show at once; event notifications name their targets), and when and why the
// bucket is public.
// docs/console.md, "Bucket settings".

import type { ReactNode } from 'react';
import { getConfig } from '../../api/configs';
import type { BucketDetails, BucketNotification, NotificationTarget, ReplicationStatus } from '../../api/types';
import { api, Api } from '../../api';
import { useResource } from '../../hooks/use-resource';
import {
  corsSummary,
  encryptionSummary,
  lifecycleSummary,
  policySummary,
  publicGrants,
  tagsSummary,
  type CorsRule,
} from '../../lib/bucket-summary';
import { formatBytes, formatCount, formatTime } from '../../lib/format';
import type { LifecycleRule, Tag } from '../../lib/lifecycle-form';
import { ruleSummary } from '../../lib/notifications';
import { publicAccessText } from '../../lib/public-access';
import { Card, Facts, Badge } from '../../ui/layout';

interface Configs {
  encryption: { sseAlgorithm: string; bucketKeyEnabled?: boolean } | null;
  lifecycle: { rules: LifecycleRule[] } | null;
  cors: { rules: CorsRule[] } | null;
  policy: unknown;
  tags: { tags: Tag[] } | null;
  tieringOn: boolean;
  notification: { config: BucketNotification; targets: NotificationTarget[] } | null;
}

/** The configuration and the targets it may name (for their ids and kinds; none when the list fails). */
async function loadNotification(bucket: string, signal: AbortSignal): Promise<Configs['notification']> {
  const [config, targets] = await Promise.all([
    api.get<BucketNotification>(Api.bucket(bucket, '/notification'), undefined, signal),
    api
      .get<{ items: NotificationTarget[] }>('/notification-targets', undefined, signal)
      .then((r) => r.items)
      .catch(() => []),
  ]);
  return { config, targets };
}

async function loadConfigs(b: BucketDetails, signal: AbortSignal): Promise<Configs> {
  const when = <T,>(on: boolean, load: () => Promise<T | null>): Promise<T | null> =>
    on ? load() : Promise.resolve(null);
  const [encryption, lifecycle, cors, policy, tags, replication, notification] = await Promise.all([
    when(b.configs.encryption, () => getConfig<Configs['encryption']>(b.name, 'encryption', signal)),
    when(b.configs.lifecycle, () => getConfig<{ rules: LifecycleRule[] }>(b.name, 'lifecycle', signal)),
    when(b.configs.cors, () => getConfig<{ rules: CorsRule[] }>(b.name, 'cors', signal)),
    when(b.configs.policy, () => getConfig<unknown>(b.name, 'policy', signal)),
    when(b.configs.tagging, () => getConfig<{ tags: Tag[] }>(b.name, 'tagging', signal)),
    b.configs.lifecycle
      ? api.get<ReplicationStatus>('/replication/status', undefined, signal).catch(() => null)
      : Promise.resolve(null),
    when(b.configs.notification, () => loadNotification(b.name, signal)),
  ]);
  return {
    encryption: encryption ?? null,
    lifecycle,
    cors,
    policy,
    tags,
    tieringOn: Boolean(replication?.tiering?.enabled),
    notification,
  };
}

const lines = (items: string[], none: string): ReactNode =>
  items.length === 0 ? (
    none
  ) : items.length === 1 ? (
    items[0]
  ) : (
    <ul className="plain-list">
      {items.map((l, i) => (
        <li key={i}>{l}</li>
      ))}
    </ul>
  );

function PublicNote({ bucket, policy }: { bucket: BucketDetails; policy: unknown }) {
  if (!bucket.public.isPublic)
    return (
      <p className="note note-info" data-testid="public-note">
        <strong>Not public.</strong> Only signed requests by access keys this server knows can read or change it
        {bucket.configs.publicAccessBlock ? ', and its public access block keeps it that way' : ''}.
      </p>
    );
  const grants = publicGrants(policy);
  return (
    <div className="note note-warn" data-testid="public-note">
      <p>
        <strong>{publicAccessText(bucket.public)}.</strong> Anyone can reach it without credentials:
      </p>
      <ul className="plain-list">
        {grants.map((g, i) => (
          <li key={i}>
            The bucket policy{g.sid ? ` (statement ${g.sid})` : ''} allows {g.actions.join(', ')} on{' '}
            {g.resources.join(', ')}, {g.when}.
          </li>
        ))}
        {bucket.public.reasons.includes('acl') ? (
          <li>The bucket ACL grants access to everyone (AllUsers or AuthenticatedUsers).</li>
        ) : null}
      </ul>
    </div>
  );
}

export function BucketOverview({ bucket }: { bucket: BucketDetails }) {
  const configs = useResource((signal) => loadConfigs(bucket, signal), [bucket]);
  const c = configs.data;
  const pending = (on: boolean, text: () => ReactNode): ReactNode =>
    !on ? <Badge>not set</Badge> : c === undefined ? '…' : text();
  return (
    <Card title="Overview">
      <PublicNote bucket={bucket} policy={c?.policy ?? null} />
      <Facts
        items={[
          ['Objects', `${formatCount(bucket.objectCount)} (${formatBytes(bucket.bytes)})`],
          [
            'All versions and delete markers',
            `${formatCount(bucket.versionCount)} (${formatBytes(bucket.versionBytes)})`,
          ],
          ['Versioning', bucket.versioning],
          ['Object lock', bucket.objectLock ? 'On' : 'Off'],
          ['Region', bucket.region],
          ['Created', formatTime(bucket.createdAt)],
          [
            'Default encryption',
            pending(bucket.configs.encryption, () => encryptionSummary(c?.encryption ?? undefined)),
          ],
          [
            'Lifecycle',
            pending(bucket.configs.lifecycle, () =>
              lines(lifecycleSummary(c?.lifecycle?.rules ?? [], c?.tieringOn ?? false), 'No rules'),
            ),
          ],
          ['CORS', pending(bucket.configs.cors, () => lines(corsSummary(c?.cors?.rules ?? []), 'No rules'))],
          ['Policy', pending(bucket.configs.policy, () => lines(policySummary(c?.policy), 'No statements'))],
          ['Tags', pending(bucket.configs.tagging, () => tagsSummary(c?.tags?.tags ?? []))],
          [
            'Event notifications',
            pending(bucket.configs.notification, () =>
              lines(
                (c?.notification?.config.rules ?? []).map((r) => ruleSummary(r, c?.notification?.targets ?? [])),
                'No configurations',
              ),
            ),
          ],
          [
            'Object ownership',
            bucket.objectOwnership === 'BucketOwnerEnforced'
              ? 'BucketOwnerEnforced (ACLs disabled)'
              : `${bucket.objectOwnership} (ACLs enabled)`,
          ],
          ['Public access block', bucket.configs.publicAccessBlock ? 'set (through the S3 API)' : 'not set'],
        ]}
      />
    </Card>
  );
}
