// The uploads bar: one overall progress (bytes, speed, time left, files) that stays at the bottom of the screen
// while the list scrolls, expandable to the per-file list with each file's bar, cancel and retry.
// docs/console.md, "Uploads and downloads".

import { useEffect, useId, useRef, useState } from 'react';
import { formatBytes, formatDuration } from '../../lib/format';
import { overall, RateMeter, secondsLeft } from '../../lib/upload-progress';
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

function FileRow({ t, queue }: { t: UploadTask; queue: UploadQueue }) {
  const total = t.file.size;
  const pct = total === 0 ? (t.state === 'done' ? 100 : 0) : Math.round((t.loaded / total) * 100);
  return (
    <li className={`upload upload-${t.state}`} data-upload-key={t.key}>
      <div className="upload-line">
        <span className="mono break">{t.key}</span>
        <span className="muted nowrap">
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
          <Button variant="ghost" onClick={() => queue.cancel(t.id)} aria-label={`Cancel the upload of ${t.key}`}>
            Cancel
          </Button>
        ) : null}
        {t.state === 'failed' || t.state === 'cancelled' ? (
          <Button variant="ghost" write onClick={() => queue.retry(t.id)} aria-label={`Retry the upload of ${t.key}`}>
            Retry
          </Button>
        ) : null}
      </div>
    </li>
  );
}

/** Samples the bytes sent about four times a second while anything is moving, for the speed and time left. */
function useRate(loaded: number, active: boolean): number | undefined {
  const meter = useRef(new RateMeter());
  const latest = useRef(loaded);
  latest.current = loaded;
  const [rate, setRate] = useState<number>();
  useEffect(() => {
    if (!active) {
      meter.current = new RateMeter();
      setRate(undefined);
      return undefined;
    }
    const tick = (): void => {
      meter.current.add(performance.now(), latest.current);
      setRate(meter.current.rate());
    };
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [active]);
  return rate;
}

export function UploadPanel({ queue }: { queue: UploadQueue }) {
  const tasks = useUploads(queue);
  const sum = overall(tasks.map((t) => ({ size: t.file.size, loaded: t.loaded, state: t.state })));
  const active = sum.activeFiles;
  const rate = useRate(sum.loaded, active > 0);
  const [open, setOpen] = useState(false);
  const listId = useId();
  // Closing or reloading the tab would cut the uploads off: the browser asks first.
  useEffect(() => {
    if (active === 0) return undefined;
    const warn = (e: BeforeUnloadEvent): void => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
  if (tasks.length === 0) return null;
  const left = secondsLeft(sum.bytes - sum.loaded, rate);
  const heading =
    active > 0
      ? `Uploading ${sum.doneFiles} of ${sum.files} files`
      : `Uploads: ${sum.doneFiles} of ${sum.files} files uploaded`;
  return (
    // It floats at the bottom of the screen while anything is being sent; once all are done it settles below the
    // list, so it covers no row.
    <section
      className={`card upload-panel${active > 0 ? ' upload-panel-floating' : ''}`}
      aria-labelledby="uploads-title"
      data-testid="upload-bar"
    >
      <div className="upload-summary">
        <h2 id="uploads-title" className="upload-title">
          {heading}
          {sum.failedFiles > 0 ? <span className="upload-failed-count">, {sum.failedFiles} failed</span> : null}
        </h2>
        <progress
          max={Math.max(sum.bytes, 1)}
          value={sum.bytes === 0 ? (active === 0 ? 1 : 0) : sum.loaded}
          aria-label="Overall upload progress"
          data-testid="upload-overall"
        />
        <p className="upload-figures" aria-live="off" data-testid="upload-figures">
          <span>
            {formatBytes(sum.loaded)} of {formatBytes(sum.bytes)}
          </span>
          {active > 0 ? (
            <>
              <span>{rate === undefined ? 'measuring speed…' : `${formatBytes(Math.round(rate))}/s`}</span>
              <span>{left === undefined ? '' : `${formatDuration(left)} left`}</span>
            </>
          ) : null}
        </p>
        <div className="actions">
          <Button variant="ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((o) => !o)}>
            {open ? 'Hide files' : 'Show files'}
          </Button>
          <Button variant="ghost" onClick={() => queue.clearFinished()}>
            Clear finished
          </Button>
        </div>
      </div>
      <ul className="uploads" id={listId} hidden={!open}>
        {tasks.map((t) => (
          <FileRow key={t.id} t={t} queue={queue} />
        ))}
      </ul>
    </section>
  );
}
