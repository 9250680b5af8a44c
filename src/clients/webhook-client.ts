// The webhook sender: one POST to the configured URL over node:http(s) with keep-alive sockets. It never follows a
// redirect (node:http does not), bounds each request by a timeout, discards the response body (reading at most
// MAX_DISCARDED_BODY_BYTES of it), and describes a failure without the URL, its credentials or any header value,
// so the reason can be stored and shown.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Response body bytes read (and dropped) before the connection is cut: far more than any receiver's reply. */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024;

export interface WebhookPost {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the request (shutdown); the result is then `aborted`. */
  signal?: AbortSignal;
}

export type WebhookPostResult =
  /** The receiver answered; its status decides success. */
  | { kind: 'response'; status: number }
  /** No answer: a network error or the timeout. `reason` is safe to store (no URL, no credentials). */
  | { kind: 'error'; reason: string }
  | { kind: 'aborted' };

/** What the webhook service needs from a sender (tests substitute their own). */
export interface WebhookTransport {
  post(request: WebhookPost): Promise<WebhookPostResult>;
  close(): void;
}

export class WebhookClient implements WebhookTransport {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  /** @param maxSockets connections per receiver, at most (the delivery concurrency). */
  constructor(opts: { maxSockets: number }) {
    this.http = new HttpAgent({ keepAlive: true, maxSockets: opts.maxSockets });
    this.https = new HttpsAgent({ keepAlive: true, maxSockets: opts.maxSockets });
  }

  post(req: WebhookPost): Promise<WebhookPostResult> {
    return new Promise((resolve) => {
      if (req.signal?.aborted) {
        resolve({ kind: 'aborted' });
        return;
      }
      const isHttps = req.url.protocol === 'https:';
      const body = Buffer.from(req.body, 'utf8');
      let settled = false;
      const finish = (result: WebhookPostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const outgoing = (isHttps ? httpsRequest : httpRequest)({
        protocol: req.url.protocol,
        // URL keeps the brackets of an IPv6 literal; the socket wants the bare address.
        hostname: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: req.url.port || (isHttps ? 443 : 80),
        path: `${req.url.pathname}${req.url.search}`,
        method: 'POST',
        agent: isHttps ? this.https : this.http,
        ...(req.url.username || req.url.password
          ? { auth: `${decodeURIComponent(req.url.username)}:${decodeURIComponent(req.url.password)}` }
          : {}),
        headers: { ...req.headers, 'content-length': String(body.length) },
      });
      // One deadline for the whole exchange, headers and (discarded) body alike.
      const timer = setTimeout(() => {
        finish({ kind: 'error', reason: `timed out after ${req.timeoutMs} ms` });
        outgoing.destroy();
      }, req.timeoutMs);
      const onAbort = (): void => {
        finish({ kind: 'aborted' });
        outgoing.destroy();
      };
      req.signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // The body is discarded (SPEC delivery rule 6), but read to its end so the socket can be reused; a body
        // longer than any receiver needs to send is cut (with its socket) instead, so a receiver streaming bytes
        // without end costs neither the timeout nor the CPU to read them. The status stands either way.
        let discarded = 0;
        res.on('data', (chunk: Buffer) => {
          discarded += chunk.length;
          if (discarded <= MAX_DISCARDED_BODY_BYTES) return;
          finish({ kind: 'response', status });
          res.destroy();
        });
        res.on('error', () => undefined);
        res.on('end', () => finish({ kind: 'response', status }));
        // A connection cut after the status line still answered: the status stands.
        res.on('close', () => finish({ kind: 'response', status }));
      });
      outgoing.on('error', (err: NodeJS.ErrnoException) => {
        finish({ kind: 'error', reason: `network error: ${err.code ?? 'connection failed'}` });
      });
      outgoing.end(body);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
