// Previews that can never run as a document in the console's origin: images (SVG included) in <img>, audio and video
// in their elements, each from a blob: URL whose type the console chose from an allow-list (lib/preview.ts); PDF
// drawn into a canvas by pdf.js (pdf-preview.tsx, loaded on first use); text as a text node in <pre>. The bytes come
// from the admin raw GET (Range for text).

import { lazy, Suspense, useEffect, useState } from 'react';
import { api, Api } from '../../api';
import { describeError } from '../../api/errors';
import type { ObjectInfo } from '../../api/types';
import { formatBytes } from '../../lib/format';
import { decodeTextPreview, previewKind, previewMax, renderedType, TEXT_PREVIEW_BYTES } from '../../lib/preview';
import { ErrorNote, Loading } from '../../ui/feedback';

const PdfPreview = lazy(() => import('./pdf-preview'));

type State =
  | { kind: 'loading' }
  | { kind: 'media'; url: string; bytes: ArrayBuffer }
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'error'; message: string };

export function ObjectPreview({ bucket, info }: { bucket: string; info: ObjectInfo }) {
  const kind = previewKind(info.contentType, info.key, info.size);
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    if (kind === 'none' || kind === 'tooLarge') return undefined;
    const ctrl = new AbortController();
    let url: string | undefined;
    const query = { key: info.key, versionId: info.versionId };
    (async () => {
      if (kind !== 'text') {
        const res = await api.fetch('GET', Api.bucket(bucket, '/objects/content'), { query, signal: ctrl.signal });
        const bytes = await res.arrayBuffer();
        url = URL.createObjectURL(new Blob([bytes], { type: renderedType(info.contentType, info.key)?.type }));
        if (!ctrl.signal.aborted) setState({ kind: 'media', url, bytes });
      } else {
        const res = await api.fetch('GET', Api.bucket(bucket, '/objects/content'), {
          query,
          signal: ctrl.signal,
          headers: info.size > 0 ? { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } : {},
        });
        const preview = decodeTextPreview(new Uint8Array(await res.arrayBuffer()), info.size);
        if (!ctrl.signal.aborted) setState({ kind: 'text', ...preview });
      }
    })().catch((err: unknown) => {
      if (!ctrl.signal.aborted) setState({ kind: 'error', message: describeError(err) });
    });
    return () => {
      ctrl.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [bucket, info.key, info.versionId, info.contentType, info.size, kind]);

  if (kind === 'none')
    return (
      <p className="muted">
        No preview for this type of object ({info.contentType ?? 'unknown type'}). Download it to open it.
      </p>
    );
  if (kind === 'tooLarge') {
    const rendered = renderedType(info.contentType, info.key);
    return (
      <p className="muted">
        Too large to preview here ({formatBytes(info.size)}; previews load at most{' '}
        {formatBytes(rendered ? previewMax(rendered.kind) : 0)}). Download it, or open it through a share link.
      </p>
    );
  }
  if (state.kind === 'loading') return <Loading label="Loading the preview…" />;
  if (state.kind === 'error') return <ErrorNote message={state.message} />;
  if (state.kind === 'text')
    return (
      <figure className="preview">
        <pre className="preview-text" tabIndex={0} aria-label={`Text of ${info.key}`}>
          {state.text}
        </pre>
        {state.truncated ? (
          <figcaption className="hint">The first {TEXT_PREVIEW_BYTES / 1024} KiB are shown.</figcaption>
        ) : null}
      </figure>
    );
  const label = `Preview of ${info.key}`;
  return (
    <figure className="preview">
      {kind === 'image' ? <img src={state.url} alt={label} /> : null}
      {kind === 'audio' ? <audio controls src={state.url} aria-label={label} /> : null}
      {kind === 'video' ? <video controls src={state.url} aria-label={label} /> : null}
      {kind === 'pdf' ? (
        <Suspense fallback={<Loading label="Loading the PDF viewer…" />}>
          <PdfPreview bytes={state.bytes} label={label} />
        </Suspense>
      ) : null}
    </figure>
  );
}
