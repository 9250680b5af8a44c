// The uploads panel: one row per file with its progress bar, state, and cancel or retry.

import { useEffect } from 'react';
import { formatBytes } from '../../lib/format';
import { Button } from '../../ui/controls';
import type { UploadQueue, UploadTask } from './upload-queue';
import { useUploads } from './upload-queue';

const STATE_TEXT: Record<UploadTask['state'], string> = {
  queued: 'Waiting',
  uploading: 'Uploading',
  done: 'Uploaded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function UploadPanel({ queue }: { queue: UploadQueue }) {
  const tasks = useUploads(queue);
  const active = tasks.filter((t) => t.state === 'queued' || t.state === 'uploading').length;
  // Closing or reloading the tab would cut the uploads off: the browser asks first.
  useEffect(() => {
    if (active === 0) return undefined;
    const warn = (e: BeforeUnloadEvent): void => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
  if (tasks.length === 0) return null;
  return (
    <section className="card upload-panel" aria-labelledby="uploads-title">
      <div className="card-head">
        <h2 id="uploads-title">Uploads {active > 0 ? `(${active} in progress)` : ''}</h2>
        <Button variant="ghost" onClick={() => queue.clearFinished()}>
          Clear finished
        </Button>
      </div>
      <ul className="uploads">
        {tasks.map((t) => {
          const total = t.file.size;
          const pct = total === 0 ? (t.state === 'done' ? 100 : 0) : Math.round((t.loaded / total) * 100);
          return (
            <li key={t.id} className={`upload upload-${t.state}`} data-upload-key={t.key}>
              <div className="upload-line">
                <span className="mono break">{t.key}</span>
                <span className="muted">
                  {formatBytes(total)}
                  {t.multipart ? ' · multipart' : ''}
                </span>
              </div>
              <progress
                max={Math.max(total, 1)}
                value={total === 0 ? (t.state === 'done' ? 1 : 0) : t.loaded}
                aria-label={`Upload of ${t.key}`}
              />
              <div className="upload-line">
                <span className="upload-state">
                  {STATE_TEXT[t.state]}
                  {t.state === 'uploading' ? ` ${pct}%` : ''}
                  {t.error ? `: ${t.error}` : ''}
                </span>
                {t.state === 'queued' || t.state === 'uploading' ? (
                  <Button
                    variant="ghost"
                    onClick={() => queue.cancel(t.id)}
                    aria-label={`Cancel the upload of ${t.key}`}
                  >
                    Cancel
                  </Button>
                ) : null}
                {t.state === 'failed' || t.state === 'cancelled' ? (
                  <Button
                    variant="ghost"
                    write
                    onClick={() => queue.retry(t.id)}
                    aria-label={`Retry the upload of ${t.key}`}
                  >
                    Retry
                  </Button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
