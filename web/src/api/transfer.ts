// Byte transfers with progress: uploads through XMLHttpRequest (fetch reports no upload progress), one raw PUT for
// small files and an admin multipart upload for large ones (parts in parallel, each retried); downloads read as
// a stream into a Blob typed application/octet-stream, so nothing downloaded can ever render in the console.

import { isMultipart, PART_CONCURRENCY, planParts, type PartRange } from '../lib/upload-plan';
import { Api } from './client';
import { ApiError } from './errors';
import type { Session } from './session';

export interface Progress {
  loaded: number;
  total: number;
}

interface XhrResult {
  status: number;
  text: string;
  retryAfter: number | undefined;
}

interface PutOptions {
  headers: Record<string, string>;
  onProgress: (loaded: number) => void;
  signal: AbortSignal;
}

/** One PUT of a Blob with upload progress. Resolves with the status (no throw for HTTP errors); rejects on abort. */
function xhrPut(url: string, body: Blob, { headers, onProgress, signal }: PutOptions): Promise<XhrResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      const retry = Number(xhr.getResponseHeader('retry-after'));
      resolve({
        status: xhr.status,
        text: xhr.responseText,
        retryAfter: Number.isFinite(retry) && retry > 0 ? retry : undefined,
      });
    };
    xhr.onerror = () => reject(new ApiError(0, 'NetworkError', 'The upload was interrupted.'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    if (signal.aborted) xhr.abort();
    else xhr.send(body);
  });
}

function errorFrom(result: XhrResult): ApiError {
  try {
    const body = JSON.parse(result.text) as { error?: string; message?: string };
    return new ApiError(result.status, body.error ?? `Http${result.status}`, {
      message: body.message ?? `HTTP ${result.status}`,
      retryAfter: result.retryAfter,
    });
  } catch {
    return new ApiError(result.status, `Http${result.status}`, {
      message: `HTTP ${result.status}`,
      retryAfter: result.retryAfter,
    });
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new DOMException('Upload cancelled', 'AbortError'));
      },
      { once: true },
    );
  });

export class Transfers {
  constructor(
    private readonly api: Api,
    private readonly session: Session,
  ) {}

  /**
   * PUT with the access token: refreshed and retried once on 401; retried (up to `attempts`) on network errors,
   * 429 and 5xx with a growing pause. Resolves with the parsed JSON answer.
   */
  private async put<T>(path: string, body: Blob, opts: PutOptions & { attempts?: number }): Promise<T> {
    const { headers, onProgress, signal, attempts = 3 } = opts;
    for (let attempt = 1; ; attempt++) {
      let result: XhrResult;
      try {
        result = await xhrPut(`${this.api.base}${path}`, body, {
          headers: { ...headers, ...this.session.authHeaders() },
          onProgress,
          signal,
        });
      } catch (err) {
        if (err instanceof ApiError && attempt < attempts) {
          onProgress(0);
          await sleep(1000 * attempt, signal);
          continue;
        }
        throw err;
      }
      if (result.status === 401 && attempt === 1 && (await this.session.refresh())) continue;
      if (result.status < 300) return JSON.parse(result.text) as T;
      const retriable = result.status === 429 || result.status >= 500;
      if (!retriable || attempt >= attempts) throw errorFrom(result);
      onProgress(0);
      await sleep((result.retryAfter ?? attempt) * 1000, signal);
    }
  }

  /** Uploads a file as `key`: one PUT up to 16 MiB, otherwise a multipart upload (aborted if it fails). */
  async upload(
    { bucket, key, file }: { bucket: string; key: string; file: File },
    onProgress: (p: Progress) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const total = file.size;
    const contentType = file.type || 'application/octet-stream';
    if (!isMultipart(total)) {
      await this.put(Api.bucket(bucket, `/objects/content?key=${encodeURIComponent(key)}`), file, {
        headers: { 'content-type': contentType },
        onProgress: (loaded) => onProgress({ loaded, total }),
        signal,
      });
      onProgress({ loaded: total, total });
      return;
    }
    const { uploadId } = await this.api.post<{ uploadId: string }>(Api.bucket(bucket, '/uploads'), {
      key,
      contentType,
    });
    try {
      const etags = await this.sendParts({ bucket, key, uploadId, file }, onProgress, signal);
      await this.api.post(Api.bucket(bucket, '/uploads/complete'), { key, uploadId, parts: etags });
      onProgress({ loaded: total, total });
    } catch (err) {
      // Free the parts already stored; a failure here leaves the upload listed under the bucket's unfinished uploads.
      await this.api.del(Api.bucket(bucket, '/uploads'), { key, uploadId }).catch(() => undefined);
      throw err;
    }
  }

  private async sendParts(
    { bucket, key, uploadId, file }: { bucket: string; key: string; uploadId: string; file: File },
    onProgress: (p: Progress) => void,
    signal: AbortSignal,
  ): Promise<Array<{ partNumber: number; etag: string }>> {
    const parts = planParts(file.size);
    const loaded = new Map<number, number>();
    const report = (): void =>
      onProgress({ loaded: [...loaded.values()].reduce((a, b) => a + b, 0), total: file.size });
    const results: Array<{ partNumber: number; etag: string }> = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let part: PartRange | undefined = parts[next++]; part; part = parts[next++]) {
        const { partNumber, start, end } = part;
        const path = Api.bucket(
          bucket,
          `/uploads/part?key=${encodeURIComponent(key)}&uploadId=${encodeURIComponent(uploadId)}&partNumber=${partNumber}`,
        );
        const stored = await this.put<{ etag: string }>(path, file.slice(start, end), {
          headers: { 'content-type': 'application/octet-stream' },
          onProgress: (n) => {
            loaded.set(partNumber, n);
            report();
          },
          signal,
        });
        loaded.set(partNumber, end - start);
        report();
        results.push({ partNumber, etag: stored.etag });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PART_CONCURRENCY, parts.length) }, worker));
    return results.sort((a, b) => a.partNumber - b.partNumber);
  }

  /**
   * Downloads through the admin API (which answers Content-Disposition: attachment) into a Blob of type
   * application/octet-stream, then saves it with an <a download>. Progress is reported while reading.
   */
  async download(
    { path, query }: { path: string; query: Record<string, string | undefined> },
    fileName: string,
    { onProgress, signal }: { onProgress?: (p: Progress) => void; signal?: AbortSignal } = {},
  ): Promise<void> {
    const res = await this.api.fetch('GET', path, { query, signal });
    const total = Number(res.headers.get('content-length') ?? 0);
    const chunks: BlobPart[] = [];
    let loaded = 0;
    const reader = res.body?.getReader();
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.byteLength;
        onProgress?.({ loaded, total });
      }
    }
    saveBlob(new Blob(chunks, { type: 'application/octet-stream' }), fileName);
  }
}

/** Saves a Blob as a file. The object URL is revoked once the browser has started the download. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
