// Copy, move and rename, server-side: a selection (folders expanded, bounded by selection-keys.ts) or one object,
// into a folder of this or another bucket, in batches of 1,000 entries, each reported on its own. A move deletes each
// source after its copy committed; what a failure part-way leaves is in docs/console.md "Copy, move and rename".

import { useState } from 'react';
import { api, Api } from '../../api';
import type { TransferBody, TransferResult } from '../../api/object-work';
import type { BucketSummary } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { formatCount } from '../../lib/format';
import { keyProblem } from '../../lib/object-keys';
import { Button, SelectField, TextField } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { ErrorNote } from '../../ui/feedback';
import { folderOf, targetKey } from '../../lib/object-work';
import { selectionKeys } from './selection-keys';
import type { Row } from './use-listing';

export type TransferMode = 'copy' | 'move' | 'rename';

interface Props {
  bucket: string;
  /** The folder shown: selected keys keep their path below it. */
  prefix: string;
  mode: TransferMode;
  /** What to copy or move: the browser's selection... */
  rows?: Row[];
  /** ...or one object (rename, and the object details). */
  objectKey?: string;
  onClose: () => void;
  /** After a run (some entries may have failed); `moved`: where one object went when it was renamed or moved. */
  onDone: (summary: string, moved?: { bucket: string; key: string }) => void;
}

type Failure = TransferResult['results'][number];

const TITLES: Record<TransferMode, string> = { copy: 'Copy', move: 'Move', rename: 'Rename' };

/** The destination folder as typed: no leading slash, one trailing slash unless empty. */
function destinationFolder(text: string): string {
  const trimmed = text.trim().replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export function TransferDialog({ bucket, prefix, mode, rows, objectKey, onClose, onDone }: Props) {
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const [targetBucket, setTargetBucket] = useState(bucket);
  const [folder, setFolder] = useState(prefix);
  const [newKey, setNewKey] = useState(objectKey ?? '');
  const [status, setStatus] = useState<string>();
  const [failures, setFailures] = useState<Failure[]>([]);
  const count = rows?.length ?? 1;
  const what = rows ? `${formatCount(count)} selected item${count === 1 ? '' : 's'}` : (objectKey ?? '');
  const renameProblem =
    mode === 'rename' ? (keyProblem(newKey) ?? (newKey === objectKey ? 'Enter a new key.' : undefined)) : undefined;
  const dest = destinationFolder(folder);
  const destProblem = mode !== 'rename' && dest !== '' ? keyProblem(dest) : undefined;

  const { run, busy, error } = useAction(async () => {
    setFailures([]);
    let items: TransferBody['items'];
    if (mode === 'rename') items = [{ key: objectKey ?? '', targetKey: newKey }];
    else {
      const keys = rows
        ? await selectionKeys(bucket, rows, { onListing: (p) => setStatus(`Listing ${p}…`) })
        : [objectKey ?? ''];
      const from = rows ? prefix : folderOf(objectKey ?? '');
      items = keys.map((key) => ({ key, targetKey: targetKey(key, from, dest) }));
    }
    const failed: Failure[] = [];
    let done = 0;
    for (let i = 0; i < items.length; i += 1000) {
      setStatus(
        `${mode === 'copy' ? 'Copying' : 'Moving'} ${formatCount(Math.min(i + 1000, items.length))} of ${formatCount(items.length)}…`,
      );
      const res = await api.post<TransferResult>(Api.bucket(bucket, '/objects/transfer'), {
        items: items.slice(i, i + 1000),
        targetBucket: mode === 'rename' ? undefined : targetBucket,
        move: mode !== 'copy' || undefined,
      });
      done += res.done;
      failed.push(...res.results.filter((r) => !r.ok));
    }
    const verb = mode === 'copy' ? 'copied' : mode === 'move' ? 'moved' : 'renamed';
    const summary = `${formatCount(done)} ${verb}${failed.length ? `, ${formatCount(failed.length)} failed` : ''}.`;
    setStatus(summary);
    setFailures(failed);
    const only = items.length === 1 && failed.length === 0 && mode !== 'copy' ? items[0] : undefined;
    onDone(summary, only ? { bucket: mode === 'rename' ? bucket : targetBucket, key: only.targetKey } : undefined);
    if (failed.length === 0) onClose();
  });
  const submit = (): void => {
    if (!renameProblem && !destProblem) void run();
  };

  const options = (buckets.data?.buckets ?? [{ name: bucket }]).map((b) => ({ value: b.name, label: b.name }));
  return (
    <Dialog
      title={`${TITLES[mode]} ${what}`}
      onClose={onClose}
      onSubmit={submit}
      footer={
        <>
          <Button onClick={onClose}>{failures.length ? 'Close' : 'Cancel'}</Button>
          <Button type="submit" variant="primary" write busy={busy} disabled={Boolean(renameProblem ?? destProblem)}>
            {TITLES[mode]}
          </Button>
        </>
      }
    >
      {mode === 'rename' ? (
        <TextField
          label="New key"
          value={newKey}
          onChange={(e) => setNewKey(e.target.value)}
          autoFocus
          autoComplete="off"
          hint="The full key in this bucket; slashes make folders. The object is copied to it, then the old key deleted."
          error={newKey !== objectKey ? renameProblem : undefined}
        />
      ) : (
        <>
          <SelectField
            label="Destination bucket"
            value={targetBucket}
            onChange={(e) => setTargetBucket(e.target.value)}
            options={options}
          />
          <TextField
            label="Destination folder"
            value={folder}
            onChange={(e) => setFolder(e.target.value)}
            autoComplete="off"
            placeholder="(the top of the bucket)"
            hint={
              rows
                ? 'Selected objects and folders keep their names (and everything under a folder its path) below it.'
                : 'The object keeps its name below it.'
            }
            error={destProblem}
          />
          <p className="hint">
            {mode === 'move'
              ? 'Each object is copied on the server, then deleted here (in a versioned bucket: a delete marker).'
              : 'Objects are copied on the server with their metadata and tags.'}{' '}
            An object already at a destination key is overwritten. Folders count up to 10,000 objects in all.
          </p>
        </>
      )}
      {status ? <p role="status">{status}</p> : null}
      {failures.length > 0 ? (
        <ul className="failures" aria-label="Failures">
          {failures.slice(0, 50).map((f) => (
            <li key={`${f.key}:${f.targetKey}`}>
              <span className="mono">{f.key}</span>: {f.error} {f.message}
              {f.copied ? ' (the copy was written)' : ''}
            </li>
          ))}
          {failures.length > 50 ? <li>…and {formatCount(failures.length - 50)} more.</li> : null}
        </ul>
      ) : null}
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
