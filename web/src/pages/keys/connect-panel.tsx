// Connecting a client with a key just issued (docs/console.md "Connecting a client"): copy buttons for the id and the
// secret (shown once), the pair as .json and .csv downloads, and ready snippets for five clients that name this
// server's real S3 endpoint (STORE_ENDPOINT when configured, else the console's origin under MOUNT_PATH).

import { useState } from 'react';
import { api, paths } from '../../api';
import { useResource } from '../../hooks/use-resource';
import {
  clientSnippets,
  credentialsCsv,
  credentialsJson,
  s3Endpoint,
  type Connection,
  type Snippet,
} from '../../lib/client-snippets';
import { Button } from '../../ui/controls';
import { CopyButton, ShownOnce } from '../../ui/copy';
import { TabPanel, Tabs } from '../../ui/layout';

interface ConnectionInfo {
  endpoint: string | null;
  region: string;
  mountPath: string;
}

/** Offers `text` as a file download (a Blob URL; nothing leaves the browser). */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

type TabId = `snippet-${Snippet['id']}`;

function Snippets({ snippets }: { snippets: Snippet[] }) {
  const [current, setCurrent] = useState<TabId>('snippet-aws-cli');
  const shown = snippets.find((s) => `snippet-${s.id}` === current) ?? snippets[0];
  return (
    <div className="stack-sm">
      <Tabs
        label="Client"
        tabs={snippets.map((s) => ({ id: `snippet-${s.id}` as TabId, label: s.label }))}
        current={current}
        onChange={setCurrent}
      />
      {shown ? (
        <TabPanel id={`snippet-${shown.id}`}>
          <p className="muted">{shown.hint}</p>
          <pre className="code-block" tabIndex={0} aria-label={`${shown.label} configuration`} data-snippet={shown.id}>
            {shown.text}
          </pre>
          <CopyButton text={shown.text} label={`Copy ${shown.label} snippet`} />
        </TabPanel>
      ) : null}
    </div>
  );
}

/** The key as issued (create or rotate); a scope's bucket and prefix become what the snippets list. */
interface IssuedKey {
  accessKeyId: string;
  secretAccessKey: string;
  name?: string;
  permissions?: { scope?: { bucket: string; prefix?: string } } | null;
}

export function ConnectPanel({ issued }: { issued: IssuedKey }) {
  const info = useResource((signal) => api.get<ConnectionInfo>('/connection', undefined, signal), []);
  const conn: Connection | undefined = info.data
    ? {
        endpoint: s3Endpoint({ configured: info.data.endpoint, origin: window.location.origin, mount: paths.mount }),
        region: info.data.region,
      }
    : undefined;
  const pair = { accessKeyId: issued.accessKeyId, secretAccessKey: issued.secretAccessKey };
  return (
    <div className="stack">
      <div className="secret-row">
        <label className="secret-label">
          <span>Access key ID</span>
          <input className="input mono" readOnly value={issued.accessKeyId} onFocus={(e) => e.target.select()} />
        </label>
        <CopyButton text={issued.accessKeyId} label="Copy access key ID" />
      </div>
      <ShownOnce label="Secret access key" value={issued.secretAccessKey} copyLabel="Copy secret access key" />
      {conn ? (
        <>
          <div className="button-row">
            <Button
              icon="download"
              onClick={() => download(`${issued.accessKeyId}.json`, 'application/json', credentialsJson(pair, conn))}
            >
              Download .json
            </Button>
            <Button
              icon="download"
              onClick={() => download(`${issued.accessKeyId}_accessKeys.csv`, 'text/csv', credentialsCsv(pair))}
            >
              Download .csv
            </Button>
          </div>
          <p>
            S3 endpoint{' '}
            <span className="mono" data-testid="s3-endpoint">
              {conn.endpoint}
            </span>
            , region <span className="mono">{conn.region}</span>
          </p>
          <Snippets snippets={clientSnippets({ ...pair, name: issued.name }, conn, issued.permissions?.scope)} />
        </>
      ) : info.error ? (
        <p className="muted">The S3 endpoint could not be loaded; the key and secret above are all a client needs.</p>
      ) : null}
    </div>
  );
}
