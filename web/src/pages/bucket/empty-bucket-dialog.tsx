// Emptying a bucket (every version, delete marker and unfinished upload), and deleting it afterwards, behind a typed
// confirmation. The server empties a page per call (POST /buckets/:name/empty); versions object lock protects stay,
// are named here, and the bucket then stays too (docs/console.md "Empty and delete a bucket").

import { useState } from 'react';
import { api, Api } from '../../api';
import type { EmptyResult } from '../../api/object-work';
import type { BucketSummary } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { formatCount } from '../../lib/format';
import { Button, Checkbox, TextField } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { ErrorNote } from '../../ui/feedback';

/** Locked versions named in the dialog at most (the count covers every one). */
const SHOWN_LOCKED = 100;

interface Props {
  bucket: BucketSummary;
  /** Delete the bucket once it is empty. */
  thenDelete: boolean;
  onClose: () => void;
  /** After a run: what happened, and whether the bucket is gone. */
  onDone: (summary: string, deleted: boolean) => void;
}

export function EmptyBucketDialog({ bucket, thenDelete, onClose, onDone }: Props) {
  const name = bucket.name;
  const [typed, setTyped] = useState('');
  // Deleting empties first only when asked: a bucket that still holds data is refused (BucketNotEmpty) otherwise.
  const [emptyFirst, setEmptyFirst] = useState(!thenDelete);
  const [status, setStatus] = useState<string>();
  const [locked, setLocked] = useState<{ shown: EmptyResult['locked']; count: number }>();
  const ready = typed === name;

  const { run, busy, error } = useAction(async () => {
    setLocked(undefined);
    if (!emptyFirst) {
      await api.del(Api.bucket(name));
      onDone(`Bucket ${name} deleted.`, true);
      onClose();
      return;
    }
    let deleted = 0;
    let aborted = 0;
    const kept: EmptyResult['locked'] = [];
    let keptCount = 0;
    let cursor: string | undefined;
    do {
      const page = await api.post<EmptyResult>(Api.bucket(name, '/empty'), cursor ? { cursor } : {});
      deleted += page.deleted;
      aborted += page.uploadsAborted;
      keptCount += page.locked.length;
      kept.push(...page.locked.slice(0, SHOWN_LOCKED - kept.length));
      cursor = page.nextCursor;
      setStatus(`Removed ${formatCount(deleted)} versions and delete markers, ${formatCount(aborted)} uploads…`);
    } while (cursor);
    const removed = `Removed ${formatCount(deleted)} versions and delete markers and ${formatCount(aborted)} unfinished uploads.`;
    if (keptCount > 0) {
      setLocked({ shown: kept, count: keptCount });
      setStatus(removed);
      onDone(`${removed} ${formatCount(keptCount)} locked versions stay.`, false);
      return;
    }
    if (thenDelete) {
      await api.del(Api.bucket(name));
      onDone(`Bucket ${name} emptied and deleted.`, true);
    } else onDone(`Bucket ${name} emptied. ${removed}`, false);
    onClose();
  });

  return (
    <Dialog
      title={thenDelete ? `Delete bucket ${name}?` : `Empty bucket ${name}?`}
      onClose={onClose}
      onSubmit={() => {
        if (ready) void run();
      }}
      footer={
        <>
          <Button onClick={onClose}>{locked ? 'Close' : 'Cancel'}</Button>
          <Button type="submit" variant="danger" write disabled={!ready} busy={busy}>
            {!thenDelete ? 'Empty bucket' : emptyFirst ? 'Empty and delete bucket' : 'Delete bucket'}
          </Button>
        </>
      }
    >
      {thenDelete ? (
        <Checkbox
          label="Empty the bucket first"
          checked={emptyFirst}
          onChange={(e) => setEmptyFirst(e.target.checked)}
          hint="Without it, only an empty bucket is deleted: no objects, versions, delete markers or unfinished uploads."
        />
      ) : null}
      {!emptyFirst ? null : bucket.versionCount > 0 ? (
        <p className="note note-warn">
          Everything in {name} is deleted for good: {formatCount(bucket.versionCount)} objects, older versions and
          delete markers, and any unfinished multipart uploads. This cannot be undone.
        </p>
      ) : (
        <p>The bucket holds no objects or versions; unfinished multipart uploads, if any, are aborted.</p>
      )}
      {bucket.objectLock && emptyFirst ? (
        <p>
          Versions under retention or legal hold cannot be removed: they stay and are listed here
          {thenDelete ? ', and the bucket stays too' : ''}.
        </p>
      ) : null}
      <TextField
        label={
          <>
            Type <strong>{name}</strong> to confirm
          </>
        }
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        autoComplete="off"
        autoFocus
      />
      {status ? <p role="status">{status}</p> : null}
      {locked ? (
        <div className="note note-warn">
          <p>
            {formatCount(locked.count)} version{locked.count === 1 ? ' is' : 's are'} under retention or legal hold and
            could not be removed{thenDelete ? ', so the bucket was not deleted' : ''}. Lift the hold (or wait for the
            retention to end) and empty it again:
          </p>
          <ul className="failures" aria-label="Locked versions">
            {locked.shown.map((l) => (
              <li key={`${l.key}:${l.versionId}`}>
                <span className="mono">{l.key}</span> (version <span className="mono">{l.versionId}</span>)
              </li>
            ))}
            {locked.count > locked.shown.length ? (
              <li>…and {formatCount(locked.count - locked.shown.length)} more.</li>
            ) : null}
          </ul>
        </div>
      ) : null}
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
