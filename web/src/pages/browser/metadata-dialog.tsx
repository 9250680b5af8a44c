// Editing content type, cache headers and user metadata, as S3 does it: a copy of each object onto itself with the new
// metadata (a new version in a versioned bucket; tags kept). For one object every field is shown and saved as a whole;
// for a selection an empty field keeps each object's own value and the metadata rows are added or replaced by name.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { MetadataBody, MetadataResult } from '../../api/object-work';
import type { ObjectInfo } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { formatCount } from '../../lib/format';
import { Button, TextField } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { ErrorNote } from '../../ui/feedback';
import { selectionKeys } from './selection-keys';
import type { Row } from './use-listing';

type HeaderField = keyof NonNullable<MetadataBody['headers']>;

const FIELDS: ReadonlyArray<{ field: HeaderField; label: string; hint?: string }> = [
  { field: 'contentType', label: 'Content-Type', hint: 'For example text/html; charset=utf-8' },
  { field: 'cacheControl', label: 'Cache-Control', hint: 'For example max-age=3600 or no-cache' },
  { field: 'contentDisposition', label: 'Content-Disposition', hint: 'For example attachment; filename="report.pdf"' },
  { field: 'contentEncoding', label: 'Content-Encoding', hint: 'Only what the stored bytes are, for example gzip' },
  { field: 'contentLanguage', label: 'Content-Language' },
  { field: 'expires', label: 'Expires', hint: 'An HTTP date, for example Wed, 21 Oct 2037 07:28:00 GMT' },
];

interface MetaRow {
  name: string;
  value: string;
}

interface Props {
  bucket: string;
  /** One object, shown with its current values... */
  info?: ObjectInfo;
  /** ...or the browser's selection (folders expanded). */
  rows?: Row[];
  onClose: () => void;
  onDone: (summary: string) => void;
}

export function MetadataDialog({ bucket, info, rows, onClose, onDone }: Props) {
  const single = info !== undefined;
  const [headers, setHeaders] = useState<Record<HeaderField, string>>(() => ({
    contentType: info?.contentType ?? '',
    cacheControl: info?.cacheControl ?? '',
    contentDisposition: info?.contentDisposition ?? '',
    contentEncoding: info?.contentEncoding ?? '',
    contentLanguage: info?.contentLanguage ?? '',
    expires: info?.expires ?? '',
  }));
  const [meta, setMeta] = useState<MetaRow[]>(() =>
    Object.entries(info?.userMetadata ?? {}).map(([name, value]) => ({ name, value: String(value) })),
  );
  const [status, setStatus] = useState<string>();
  const [failures, setFailures] = useState<MetadataResult['results']>([]);
  const setRow = (i: number, patch: Partial<MetaRow>): void =>
    setMeta((m) => m.map((x, j) => (j === i ? { ...x, ...patch } : x)));

  const { run, busy, error, setError } = useAction(async () => {
    setFailures([]);
    const clean = meta.filter((m) => m.name.trim() !== '').map((m) => ({ ...m, name: m.name.trim().toLowerCase() }));
    if (new Set(clean.map((m) => m.name)).size !== clean.length) {
      setError('Each metadata name may appear only once.');
      return;
    }
    const body: Omit<MetadataBody, 'keys'> = {
      headers: Object.fromEntries(
        FIELDS.flatMap(({ field }) => {
          const value = headers[field].trim();
          if (single) return [[field, value === '' ? null : value]];
          return value === '' ? [] : [[field, value]];
        }),
      ),
      userMetadata: Object.fromEntries(clean.map((m) => [m.name, m.value])),
      replaceUserMetadata: single,
    };
    const keys = single
      ? [info.key]
      : await selectionKeys(bucket, rows ?? [], { onListing: (p) => setStatus(`Listing ${p}…`) });
    let done = 0;
    const failed: MetadataResult['results'] = [];
    for (let i = 0; i < keys.length; i += 1000) {
      setStatus(`Saving ${formatCount(Math.min(i + 1000, keys.length))} of ${formatCount(keys.length)}…`);
      const res = await api.post<MetadataResult>(Api.bucket(bucket, '/objects/metadata'), {
        ...body,
        keys: keys.slice(i, i + 1000),
      });
      done += res.done;
      failed.push(...res.results.filter((r) => !r.ok));
    }
    const summary = `Metadata saved on ${formatCount(done)} object${done === 1 ? '' : 's'}${failed.length ? `, ${formatCount(failed.length)} failed` : ''}.`;
    setStatus(summary);
    setFailures(failed);
    onDone(summary);
    if (failed.length === 0) onClose();
  });

  const count = rows?.length ?? 0;
  return (
    <Dialog
      title={
        single
          ? `Edit metadata of ${info.key}`
          : `Edit metadata of ${formatCount(count)} selected item${count === 1 ? '' : 's'}`
      }
      onClose={onClose}
      onSubmit={() => void run()}
      wide
      footer={
        <>
          <Button onClick={onClose}>{failures.length ? 'Close' : 'Cancel'}</Button>
          <Button type="submit" variant="primary" write busy={busy}>
            Save metadata
          </Button>
        </>
      }
    >
      <p className="hint">
        {single
          ? 'Saving copies the object onto itself with this metadata, as S3 does: a versioned bucket keeps the old one as a version. Tags stay.'
          : 'Each object is copied onto itself with the changes. An empty field keeps each object its own value; the metadata below is added to each (a name it has already is replaced).'}
      </p>
      <div className="grid-2">
        {FIELDS.map(({ field, label, hint }) => (
          <TextField
            key={field}
            label={label}
            hint={hint}
            value={headers[field]}
            placeholder={single ? undefined : '(unchanged)'}
            autoComplete="off"
            onChange={(e) => setHeaders((h) => ({ ...h, [field]: e.target.value }))}
          />
        ))}
      </div>
      <fieldset className="fieldset">
        <legend>User metadata (x-amz-meta-*)</legend>
        {meta.map((m, i) => (
          <div className="tag-row" key={i}>
            <label>
              <span className="visually-hidden">Metadata {i + 1} name</span>
              <input
                className="input"
                placeholder="Name"
                value={m.name}
                onChange={(e) => setRow(i, { name: e.target.value })}
              />
            </label>
            <label>
              <span className="visually-hidden">Metadata {i + 1} value</span>
              <input
                className="input"
                placeholder="Value"
                value={m.value}
                onChange={(e) => setRow(i, { value: e.target.value })}
              />
            </label>
            <Button
              variant="ghost"
              aria-label={`Remove metadata ${i + 1}`}
              onClick={() => setMeta((x) => x.filter((_, j) => j !== i))}
            >
              Remove
            </Button>
          </div>
        ))}
        <Button icon="plus" onClick={() => setMeta((x) => [...x, { name: '', value: '' }])}>
          Add metadata
        </Button>
        <p className="hint">Names are lower-cased, as S3 stores them. At most 2 KB of names and values together.</p>
      </fieldset>
      {status ? <p role="status">{status}</p> : null}
      {failures.length > 0 ? (
        <ul className="failures" aria-label="Failures">
          {failures.slice(0, 50).map((f) => (
            <li key={f.key}>
              <span className="mono">{f.key}</span>: {f.error} {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
