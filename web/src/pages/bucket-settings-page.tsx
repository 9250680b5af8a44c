// A bucket's settings: overview, versioning and object lock, default encryption, lifecycle rules (a form), CORS
// rules, the bucket policy (a JSON editor with validation), tags, the quota, and unfinished multipart uploads. The tab
// is in the URL (?tab=...), so a refresh or a link keeps it.

import type { ReactNode } from 'react';
import { api, Api } from '../api';
import type { BucketDetails } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { formatBytes, formatCount, formatTime } from '../lib/format';
import { publicAccessText } from '../lib/public-access';
import { browseRoute, Link, setQuery, useLocation } from '../router';
import { Loaded } from '../ui/feedback';
import { Badge, Card, Facts, PageHeader, TabPanel, Tabs } from '../ui/layout';
import { CorsEditor } from './bucket/cors-editor';
import { EncryptionSettings } from './bucket/encryption-settings';
import { LifecycleEditor } from './bucket/lifecycle-editor';
import { PolicyEditor } from './bucket/policy-editor';
import { BucketTags } from './bucket/bucket-tags';
import { QuotaSettings } from './bucket/quota-settings';
import { UnfinishedUploads } from './bucket/unfinished-uploads';
import { VersioningSettings } from './bucket/versioning-settings';

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'versioning', label: 'Versioning & lock' },
  { id: 'encryption', label: 'Encryption' },
  { id: 'lifecycle', label: 'Lifecycle' },
  { id: 'cors', label: 'CORS' },
  { id: 'policy', label: 'Policy' },
  { id: 'tags', label: 'Tags' },
  { id: 'quota', label: 'Quota' },
  { id: 'uploads', label: 'Unfinished uploads' },
] as const;
type TabId = (typeof TABS)[number]['id'];

function Overview({ bucket }: { bucket: BucketDetails }) {
  const set = (on: boolean): ReactNode => (on ? <Badge tone="ok">set</Badge> : <Badge>not set</Badge>);
  return (
    <Card title="Overview">
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
          ['Default encryption', set(bucket.configs.encryption)],
          ['Lifecycle', set(bucket.configs.lifecycle)],
          ['CORS', set(bucket.configs.cors)],
          ['Policy', set(bucket.configs.policy)],
          ['Tags', set(bucket.configs.tagging)],
          [
            'Public access',
            <Badge tone={bucket.public.isPublic ? 'warn' : 'ok'}>{publicAccessText(bucket.public)}</Badge>,
          ],
          [
            'Object ownership',
            bucket.objectOwnership === 'BucketOwnerEnforced'
              ? 'BucketOwnerEnforced (ACLs disabled)'
              : `${bucket.objectOwnership} (ACLs enabled)`,
          ],
          ['Public access block', set(bucket.configs.publicAccessBlock)],
        ]}
      />
    </Card>
  );
}

export default function BucketSettingsPage({ params }: { params: string[] }) {
  const name = params[0] ?? '';
  const { query } = useLocation();
  const tab = (TABS.find((t) => t.id === query.get('tab'))?.id ?? 'overview') as TabId;
  const bucket = useResource((signal) => api.get<BucketDetails>(Api.bucket(name), undefined, signal), [name]);
  return (
    <>
      <PageHeader
        title={
          <>
            Bucket <span className="mono">{name}</span>
          </>
        }
        subtitle={<Link to="buckets">All buckets</Link>}
        actions={
          <Link to={browseRoute(name)} className="btn btn-primary">
            Browse objects
          </Link>
        }
      />
      <Loaded resource={bucket} feature="Bucket">
        {(b) => (
          <>
            <Tabs
              label="Bucket settings"
              tabs={TABS}
              current={tab}
              onChange={(id) => setQuery({ tab: id === 'overview' ? undefined : id })}
            />
            <TabPanel id={tab}>
              {tab === 'overview' ? <Overview bucket={b} /> : null}
              {tab === 'versioning' ? <VersioningSettings bucket={b} onChanged={bucket.reload} /> : null}
              {tab === 'encryption' ? <EncryptionSettings bucket={name} /> : null}
              {tab === 'lifecycle' ? <LifecycleEditor bucket={name} /> : null}
              {tab === 'cors' ? <CorsEditor bucket={name} /> : null}
              {tab === 'policy' ? <PolicyEditor bucket={name} /> : null}
              {tab === 'tags' ? <BucketTags bucket={name} /> : null}
              {tab === 'quota' ? <QuotaSettings bucket={name} /> : null}
              {tab === 'uploads' ? <UnfinishedUploads bucket={name} /> : null}
            </TabPanel>
          </>
        )}
      </Loaded>
    </>
  );
}
