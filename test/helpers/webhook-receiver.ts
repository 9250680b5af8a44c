// A real webhook receiver on loopback for tests, written as docs/webhooks.md tells receivers to write one: it
// verifies every X-Store-Signature over the raw body bytes (HMAC-SHA256, constant-time compare, 300 s tolerance)
// with its own code, not Store's, and dedupes on X-Store-Delivery. Its answers are scripted per request.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  deliveryId: string;
  signatureOk: boolean;
  /** The parsed body when it is JSON. */
  event: Record<string, unknown> | undefined;
}

/** How to answer one request: a status (with optional headers), or never ('hang'). */
export type Reaction = { status: number; headers?: Record<string, string> } | 'hang';

export class WebhookReceiver {
  /** Every request, in arrival order. */
  readonly requests: ReceivedRequest[] = [];
  /** Accepted (answered 2xx) deliveries, first acceptance per X-Store-Delivery. */
  readonly accepted = new Map<string, ReceivedRequest>();
  /** 2xx answers to a delivery id already accepted: the at-least-once re-sends a receiver must dedupe. */
  duplicates = 0;
  badSignatures = 0;
  /** Decides each answer; `n` counts the requests for the same delivery id (1 for the first). Default 200. */
  respond: (req: ReceivedRequest, n: number) => Reaction = () => ({ status: 200 });
  private readonly hanging = new Set<ServerResponse>();
  private readonly perDelivery = new Map<string, number>();

  private readonly server: Server;
  private address: string | undefined;

  /** A receiver that listens once start() (or useWebhookReceiver's beforeAll) has run. */
  constructor(
    readonly secret: string,
    private readonly path = '/hook',
  ) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        this.handle(
          { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) },
          res,
        ),
      );
    });
  }

  /** A receiver listening on a free loopback port. */
  static async start(secret: string, path = '/hook'): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(secret, path);
    await receiver.listen();
    return receiver;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.address = `http://127.0.0.1:${port}${this.path}`;
  }

  /** Where deliveries go (WEBHOOK_URL). Throws before listen(). */
  get url(): string {
    if (this.address === undefined) throw new Error('the webhook receiver is not listening yet');
    return this.address;
  }

  /** HMAC-SHA256 over "<t>.<raw body>", compared in constant time; the timestamp within 300 s. */
  verify(header: string | undefined, body: Buffer): boolean {
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
    if (!match) return false;
    const t = Number(match[1]);
    if (Math.abs(Date.now() / 1000 - t) > 300) return false;
    const expected = createHmac('sha256', this.secret).update(`${match[1]}.`).update(body).digest();
    return timingSafeEqual(expected, Buffer.from(match[2] as string, 'hex'));
  }

  private handle(
    { method, path, headers, body }: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer },
    res: ServerResponse,
  ): void {
    const deliveryId = String(headers['x-store-delivery'] ?? '');
    let event: Record<string, unknown> | undefined;
    try {
      event = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      event = undefined;
    }
    const req: ReceivedRequest = {
      method,
      path,
      headers,
      body,
      deliveryId,
      event,
      signatureOk: this.verify(headers['x-store-signature'] as string | undefined, body),
    };
    this.requests.push(req);
    if (!req.signatureOk) {
      this.badSignatures++;
      res.writeHead(401).end();
      return;
    }
    const n = (this.perDelivery.get(deliveryId) ?? 0) + 1;
    this.perDelivery.set(deliveryId, n);
    const reaction = this.respond(req, n);
    if (reaction === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reaction.status >= 200 && reaction.status < 300) {
      if (this.accepted.has(deliveryId)) this.duplicates++;
      else this.accepted.set(deliveryId, req);
    }
    res.writeHead(reaction.status, reaction.headers).end('ignored body');
  }

  /** Accepted events (dedupe done), in acceptance order. */
  events(): Record<string, unknown>[] {
    return [...this.accepted.values()].map((r) => r.event ?? {});
  }

  /** Resolves once `n` distinct deliveries were accepted; rejects after `timeoutMs`. */
  async waitForAccepted(n: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted.size < n) {
      if (Date.now() > deadline)
        throw new Error(`only ${this.accepted.size} of ${n} deliveries accepted after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A receiver for the tests of the enclosing file or describe block: listening in beforeAll, closed in afterAll. */
export function useWebhookReceiver(secret: string, path?: string): WebhookReceiver {
  const receiver = new WebhookReceiver(secret, path);
  beforeAll(() => receiver.listen());
  afterAll(() => receiver.close());
  return receiver;
}
