// A bucket's settings: overview, versioning and object lock, default encryption, lifecycle rules (a form), CORS
// rules, the bucket policy (a JSON editor with validation), tags, the quota, event notifications, and unfinished
// multipart uploads. The tab is in the URL (?tab=...), so a refresh or a link keeps it.

import { api, Api } from '../api';
import type { BucketDetails } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { browseRoute, Link, setQuery, useLocation } from '../router';
import { Loaded } from '../ui/feedback';
import { PageHeader, TabPanel, Tabs } from '../ui/layout';
import { BucketOverview } from './bucket/overview';
import { CorsEditor } from './bucket/cors-editor';
import { EncryptionSettings } from './bucket/encryption-settings';
import { LifecycleEditor } from './bucket/lifecycle-editor';
import { NotificationSettings } from './bucket/notification-settings';
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
  { id: 'events', label: 'Events' },
  { id: 'uploads', label: 'Unfinished uploads' },
] as const;
type TabId = (typeof TABS)[number]['id'];

export default function BucketSettingsPage({ params }: { params: string[] }) {
  const name = params[0] ?? '';
  const { query } = useLocation();
  const tab = (TABS.find((t) => t.id === query.get('tab'))?.id ?? 'overview') as TabId;
  // Fetched again whenever the tab changes, so the Overview shows what the other tabs just changed.
  const bucket = useResource((signal) => api.get<BucketDetails>(Api.bucket(name), undefined, signal), [name, tab]);
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
              {tab === 'overview' ? <BucketOverview bucket={b} /> : null}
              {tab === 'versioning' ? <VersioningSettings bucket={b} onChanged={bucket.reload} /> : null}
              {tab === 'encryption' ? <EncryptionSettings bucket={name} /> : null}
              {tab === 'lifecycle' ? <LifecycleEditor bucket={name} /> : null}
              {tab === 'cors' ? <CorsEditor bucket={name} /> : null}
              {tab === 'policy' ? <PolicyEditor bucket={name} /> : null}
              {tab === 'tags' ? <BucketTags bucket={name} /> : null}
              {tab === 'quota' ? <QuotaSettings bucket={name} /> : null}
              {tab === 'events' ? <NotificationSettings bucket={name} /> : null}
              {tab === 'uploads' ? <UnfinishedUploads bucket={name} /> : null}
            </TabPanel>
          </>
        )}
      </Loaded>
    </>
  );
}
