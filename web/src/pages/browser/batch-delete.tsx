// Deleting what is selected in the browser: objects, whole folders (every key under them), or specific versions,
// in batches of 1,000 (the API's DeleteObjects limit), each entry reported on its own.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { BatchDeleteResult, BrowsePage } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { formatCount } from '../../lib/format';
import { Button, Checkbox } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { ErrorNote } from '../../ui/feedback';
import type { Row } from './use-listing';

interface Entry {
  key: string;
  versionId?: string;
}

async function keysUnder(bucket: string, prefix: string): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get<BrowsePage>(Api.bucket(bucket, '/objects'), { prefix, cursor, limit: 1000 });
    out.push(...page.objects.map((o) => ({ key: o.key })));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export function BatchDeleteDialog({
  bucket,
  rows,
  versioned,
  onClose,
  onDone,
}: {
  bucket: string;
  rows: Row[];
  versioned: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const [bypass, setBypass] = useState(false);
  const [status, setStatus] = useState<string>();
  const [failures, setFailures] = useState<BatchDeleteResult['results']>([]);
  const folders = rows.filter((r) => r.kind === 'folder');
  const versions = rows.filter((r) => r.kind === 'version');

  const {
    run: deleteAll,
    busy,
    error,
  } = useAction(async () => {
    const entries: Entry[] = [];
    for (const r of rows) {
      if (r.kind === 'object') entries.push({ key: r.object.key });
      else if (r.kind === 'version') entries.push({ key: r.version.key, versionId: r.version.versionId });
      else {
        setStatus(`Listing ${r.prefix}…`);
        entries.push(...(await keysUnder(bucket, r.prefix)));
      }
    }
    let deleted = 0;
    const failed: BatchDeleteResult['results'] = [];
    for (let i = 0; i < entries.length; i += 1000) {
      setStatus(`Deleting ${formatCount(Math.min(i + 1000, entries.length))} of ${formatCount(entries.length)}…`);
      const res = await api.post<BatchDeleteResult>(Api.bucket(bucket, '/objects/delete'), {
        keys: entries.slice(i, i + 1000),
        bypassGovernance: bypass || undefined,
      });
      deleted += res.deleted;
      failed.push(...res.results.filter((r) => !r.ok));
    }
    setStatus(`${formatCount(deleted)} deleted${failed.length ? `, ${formatCount(failed.length)} refused` : ''}.`);
    setFailures(failed);
    onDone();
    if (failed.length === 0) onClose();
  });
  const run = async (): Promise<void> => {
    setFailures([]);
    await deleteAll();
  };

  return (
    <Dialog
      title={`Delete ${rows.length} selected item${rows.length === 1 ? '' : 's'}?`}
      onClose={onClose}
      onSubmit={() => void run()}
      footer={
        <>
          <Button onClick={onClose}>{failures.length ? 'Close' : 'Cancel'}</Button>
          <Button type="submit" variant="danger" write busy={busy}>
            Delete
          </Button>
        </>
      }
    >
      {folders.length > 0 ? (
        <p className="note note-warn">
          Every object under {folders.map((f) => (f.kind === 'folder' ? f.prefix : '')).join(', ')} is deleted too.
        </p>
      ) : null}
      {versions.length > 0 ? (
        <p>Selected versions are removed for good.</p>
      ) : versioned ? (
        <p>
          The bucket is versioned: deleted objects get a delete marker and keep their versions, so they can be restored.
        </p>
      ) : (
        <p>The bucket is not versioned: deleted objects are gone for good.</p>
      )}
      <Checkbox label="Bypass governance retention" checked={bypass} onChange={(e) => setBypass(e.target.checked)} />
      {status ? <p role="status">{status}</p> : null}
      {failures.length > 0 ? (
        <ul className="failures">
          {failures.slice(0, 50).map((f) => (
            <li key={`${f.key}:${f.versionId ?? ''}`}>
              <span className="mono">{f.key}</span>: {f.error} {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
