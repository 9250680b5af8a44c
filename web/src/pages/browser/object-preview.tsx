// Previews that can never run as HTML in the console's origin: raster images (allow-listed types only, SVG never)
// as <img> from a blob: URL whose type the console chose, and text as a text node in <pre>. The bytes come from
// the admin raw GET (Range for text).

import { useEffect, useState } from 'react';
import { api, Api } from '../../api';
import { describeError } from '../../api/errors';
import type { ObjectInfo } from '../../api/types';
import { decodeTextPreview, previewKind, safeImageType, TEXT_PREVIEW_BYTES } from '../../lib/preview';
import { ErrorNote, Loading } from '../../ui/feedback';

type State =
  | { kind: 'loading' }
  | { kind: 'image'; url: string }
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'error'; message: string };

export function ObjectPreview({ bucket, info }: { bucket: string; info: ObjectInfo }) {
  const kind = previewKind(info.contentType, info.key, info.size);
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    if (kind === 'none') return undefined;
    const ctrl = new AbortController();
    let url: string | undefined;
    const query = { key: info.key, versionId: info.versionId };
    (async () => {
      if (kind === 'image') {
        const res = await api.fetch('GET', Api.bucket(bucket, '/objects/content'), { query, signal: ctrl.signal });
        const blob = new Blob([await res.arrayBuffer()], { type: safeImageType(info.contentType, info.key) });
        url = URL.createObjectURL(blob);
        if (!ctrl.signal.aborted) setState({ kind: 'image', url });
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
  if (state.kind === 'loading') return <Loading label="Loading the preview…" />;
  if (state.kind === 'error') return <ErrorNote message={state.message} />;
  if (state.kind === 'image')
    return (
      <figure className="preview">
        <img src={state.url} alt={`Preview of ${info.key}`} />
      </figure>
    );
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
}
