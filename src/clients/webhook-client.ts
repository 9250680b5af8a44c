// The webhook sender: one POST to the configured URL over node:http(s) with keep-alive sockets. It never follows a
// redirect (node:http does not), bounds each request by a timeout, discards the response body (reading at most
// MAX_DISCARDED_BODY_BYTES of it), and describes a failure without the URL, its credentials or any header value, so
// the reason can be stored.
//
// In `store serve` it runs on the webhook delivery thread (src/app/webhook-delivery-thread.ts), beside the rest of
// delivery; node:http's client machinery costs about 0.1 ms of CPU per request, which the event loop does not pay.

import http from 'node:http';
import https from 'node:https';

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

/** What the webhook dispatcher needs from a sender (tests substitute their own). */
export interface WebhookTransport {
  post(request: WebhookPost): Promise<WebhookPostResult>;
  close(): void;
}

export class WebhookClient implements WebhookTransport {
  private readonly agents: { http: http.Agent; https: https.Agent };
  /** Requests in flight: each ends with a network error on close(). */
  private readonly inFlight = new Set<(result: WebhookPostResult) => void>();

  /** @param maxSockets connections per receiver, at most (the delivery concurrency). */
  constructor(opts: { maxSockets: number }) {
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets }),
      https: new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets }),
    };
  }

  post(req: WebhookPost): Promise<WebhookPostResult> {
    if (req.signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    const isHttps = req.url.protocol === 'https:';
    const body = Buffer.from(req.body, 'utf8');
    return new Promise<WebhookPostResult>((resolve) => {
      const outgoing = (isHttps ? https : http).request({
        protocol: isHttps ? 'https:' : 'http:',
        // URL keeps the brackets of an IPv6 literal; the socket wants the bare address.
        hostname: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: req.url.port || (isHttps ? 443 : 80),
        path: `${req.url.pathname}${req.url.search}`,
        method: 'POST',
        agent: isHttps ? this.agents.https : this.agents.http,
        ...(req.url.username || req.url.password
          ? { auth: `${decodeURIComponent(req.url.username)}:${decodeURIComponent(req.url.password)}` }
          : {}),
        headers: { ...req.headers, 'content-length': String(body.length) },
      });
      const onAbort = (): void => finish({ kind: 'aborted' }, true);
      const finish = (result: WebhookPostResult, destroy = false): void => {
        if (!this.inFlight.delete(finish)) return;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        if (destroy) outgoing.destroy();
        resolve(result);
      };
      this.inFlight.add(finish);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      // One deadline for the whole exchange, headers and (discarded) body alike.
      const timer = setTimeout(
        () => finish({ kind: 'error', reason: `timed out after ${req.timeoutMs} ms` }, true),
        req.timeoutMs,
      );
      outgoing.on('response', (res) => {
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

  /** Closes idle keep-alive sockets; requests still in flight end as network errors. */
  close(): void {
    for (const finish of [...this.inFlight]) finish({ kind: 'error', reason: 'network error: closed' });
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
