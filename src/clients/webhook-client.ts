// The webhook sender: one POST to the configured URL over node:http(s) with keep-alive sockets, made on a worker
// thread. It never follows a redirect (node:http does not), bounds each request by a timeout, discards the response
// body (reading at most MAX_DISCARDED_BODY_BYTES of it), and describes a failure without the URL, its credentials
// or any header value, so the reason can be stored.
//
// Why a thread: on the event loop a delivery cost about 0.25 ms of CPU per event (node:http's client machinery and
// the socket writes, which on loopback also run the receiver's side of TCP), a fifth of a small PUT's
// (docs/performance.md, "Webhooks"). On the thread the event loop only passes messages, and those in batches: the
// requests started in one turn go as one message, the replies finished in one turn come back as one.

import { Worker } from 'node:worker_threads';

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

/** A request as the thread receives it: plain data, so it crosses by structured clone. */
interface ThreadRequest {
  id: number;
  https: boolean;
  hostname: string;
  port: string;
  path: string;
  auth: string | null;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

interface ThreadReply {
  id: number;
  result: WebhookPostResult;
}

// Plain JavaScript run with `eval` (like the hash pool's and the checkpointer's threads), so it needs no separate
// file next to the compiled one or the TypeScript one in tests. Its contract is tested through WebhookClient.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: workerData.maxSockets }),
  https: new https.Agent({ keepAlive: true, maxSockets: workerData.maxSockets }),
};
const inFlight = new Map();

// Replies finished in one turn go back as one message (a message costs far more than its few bytes).
let replies = [];
function reply(r) {
  if (replies.length === 0) setImmediate(() => { const batch = replies; replies = []; parentPort.postMessage(batch); });
  replies.push(r);
}

function post(m) {
  const body = Buffer.from(m.body, 'utf8');
  let settled = false;
  const finish = (result) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    inFlight.delete(m.id);
    reply({ id: m.id, result });
  };
  const outgoing = (m.https ? https : http).request({
    protocol: m.https ? 'https:' : 'http:',
    hostname: m.hostname,
    port: m.port,
    path: m.path,
    method: 'POST',
    agent: m.https ? agents.https : agents.http,
    ...(m.auth === null ? {} : { auth: m.auth }),
    headers: { ...m.headers, 'content-length': String(body.length) },
  });
  // One deadline for the whole exchange, headers and (discarded) body alike.
  const timer = setTimeout(() => {
    finish({ kind: 'error', reason: 'timed out after ' + m.timeoutMs + ' ms' });
    outgoing.destroy();
  }, m.timeoutMs);
  inFlight.set(m.id, () => {
    finish({ kind: 'aborted' });
    outgoing.destroy();
  });
  outgoing.on('response', (res) => {
    const status = res.statusCode || 0;
    // The body is discarded (SPEC delivery rule 6), but read to its end so the socket can be reused; a body
    // longer than any receiver needs to send is cut (with its socket) instead, so a receiver streaming bytes
    // without end costs neither the timeout nor the CPU to read them. The status stands either way.
    let discarded = 0;
    res.on('data', (chunk) => {
      discarded += chunk.length;
      if (discarded <= workerData.maxDiscardedBodyBytes) return;
      finish({ kind: 'response', status });
      res.destroy();
    });
    res.on('error', () => undefined);
    res.on('end', () => finish({ kind: 'response', status }));
    // A connection cut after the status line still answered: the status stands.
    res.on('close', () => finish({ kind: 'response', status }));
  });
  outgoing.on('error', (err) => {
    finish({ kind: 'error', reason: 'network error: ' + (err.code || 'connection failed') });
  });
  outgoing.end(body);
}

parentPort.on('message', (m) => {
  if (m.op === 'posts') for (const request of m.requests) post(request);
  else if (m.op === 'abort') inFlight.get(m.id)?.();
  else if (m.op === 'close') {
    agents.http.destroy();
    agents.https.destroy();
    parentPort.close();
  }
});
`;

export class WebhookClient implements WebhookTransport {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, (result: WebhookPostResult) => void>();
  /** Requests waiting for this turn's message to the thread. */
  private queued: ThreadRequest[] = [];
  private nextId = 1;

  /** @param maxSockets connections per receiver, at most (the delivery concurrency). */
  constructor(private readonly opts: { maxSockets: number }) {}

  post(req: WebhookPost): Promise<WebhookPostResult> {
    if (req.signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    const id = this.nextId++;
    const worker = this.live();
    const isHttps = req.url.protocol === 'https:';
    const message: ThreadRequest = {
      id, https: isHttps,
      // URL keeps the brackets of an IPv6 literal; the socket wants the bare address.
      hostname: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: req.url.port || (isHttps ? '443' : '80'),
      path: `${req.url.pathname}${req.url.search}`,
      auth: req.url.username || req.url.password
        ? `${decodeURIComponent(req.url.username)}:${decodeURIComponent(req.url.password)}`
        : null,
      headers: req.headers, body: req.body, timeoutMs: req.timeoutMs,
    };
    return new Promise<WebhookPostResult>((resolve) => {
      const onAbort = (): void => {
        // Still waiting for this turn's message: it never leaves. Otherwise the thread cancels it.
        const at = this.queued.findIndex((r) => r.id === id);
        if (at >= 0) this.queued.splice(at, 1);
        else worker.postMessage({ op: 'abort', id });
        settle({ kind: 'aborted' });
      };
      const settle = (result: WebhookPostResult): void => {
        if (!this.pending.delete(id)) return;
        req.signal?.removeEventListener('abort', onAbort);
        // Referenced only while it has work, so an idle thread never keeps the process alive.
        if (this.pending.size === 0) worker.unref();
        resolve(result);
      };
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, settle);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      this.send(worker, message);
    });
  }

  /**
   * Queues a request for the thread; the requests queued in one synchronous run (a dispatcher fills its free slots in
   * one loop) cross as one message, sent from a microtask, so a burst costs one structured clone instead of one each.
   */
  private send(worker: Worker, request: ThreadRequest): void {
    if (this.queued.length === 0) {
      queueMicrotask(() => {
        const requests = this.queued;
        this.queued = [];
        // A thread lost meanwhile has already failed these requests (failPending).
        if (this.worker === worker) worker.postMessage({ op: 'posts', requests });
      });
    }
    this.queued.push(request);
  }

  /** Closes idle keep-alive sockets and ends the thread; requests still in flight end as network errors. */
  close(): void {
    const worker = this.worker;
    this.worker = undefined;
    worker?.postMessage({ op: 'close' });
    this.failPending('closed');
  }

  private live(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { maxSockets: this.opts.maxSockets, maxDiscardedBodyBytes: MAX_DISCARDED_BODY_BYTES } });
    worker.unref();
    worker.on('message', (replies: ThreadReply[]) => {
      for (const reply of replies) this.pending.get(reply.id)?.(reply.result);
    });
    // A dead thread fails what it was doing (each row is retried with backoff); the next post starts a new one.
    const lost = (): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failPending('sender thread exited');
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }

  private failPending(what: string): void {
    for (const settle of [...this.pending.values()]) settle({ kind: 'error', reason: `network error: ${what}` });
  }
}
