// A PDF drawn page by page into a canvas by pdf.js, loaded only when a PDF is first previewed (its own chunks: the
// library and its worker, both files of this origin, so the console's CSP needs only `worker-src 'self'`). Nothing in
// the PDF runs: pdf.js's scripting is off, `isEvalSupported` is false, and a canvas holds pixels, not a document.

import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../../ui/controls';
import { ErrorNote, Loading } from '../../ui/feedback';

GlobalWorkerOptions.workerSrc = new URL('pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url).toString();

export default function PdfPreview({ bytes, label }: { bytes: ArrayBuffer; label: string }) {
  const [doc, setDoc] = useState<PDFDocumentProxy>();
  const [error, setError] = useState<string>();
  const [page, setPage] = useState(1);
  const [drawn, setDrawn] = useState(0);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    // pdf.js takes the buffer over (transfers it to its worker): give it a copy, the blob keeps the original.
    const task = getDocument({ data: new Uint8Array(bytes.slice(0)), isEvalSupported: false, enableXfa: false });
    let loaded: PDFDocumentProxy | undefined;
    task.promise.then(
      (d) => {
        loaded = d;
        setDoc(d);
      },
      (err: unknown) => setError(`This PDF cannot be shown: ${err instanceof Error ? err.message : String(err)}`),
    );
    return () => {
      void (loaded ? loaded.destroy() : task.destroy());
    };
  }, [bytes]);

  useEffect(() => {
    const target = canvas.current;
    if (!doc || !target) return undefined;
    let cancelled = false;
    let render: { cancel(): void } | undefined;
    void doc.getPage(page).then((p) => {
      if (cancelled) return;
      const width = target.parentElement?.clientWidth ?? 600;
      const viewport = p.getViewport({ scale: Math.min(2, width / p.getViewport({ scale: 1 }).width) });
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      const task = p.render({ canvasContext: target.getContext('2d')!, viewport });
      render = task;
      task.promise.then(
        () => !cancelled && setDrawn(page),
        () => undefined,
      );
    });
    return () => {
      cancelled = true;
      render?.cancel();
    };
  }, [doc, page]);

  if (error) return <ErrorNote message={error} />;
  if (!doc) return <Loading label="Reading the PDF…" />;
  return (
    <div className="pdf-preview">
      <canvas ref={canvas} role="img" aria-label={`${label}, page ${page} of ${doc.numPages}`} data-drawn={drawn} />
      <div className="toolbar" role="toolbar" aria-label="PDF pages">
        <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </Button>
        <span aria-live="polite">
          Page {page} of {doc.numPages}
        </span>
        <Button disabled={page >= doc.numPages} onClick={() => setPage(page + 1)}>
          Next page
        </Button>
      </div>
    </div>
  );
}
