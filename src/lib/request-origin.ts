// Who and what caused a change, carried from the S3 plane (and the lifecycle worker) to the notification outbox
// without threading it through every service call (docs/notifications.md "Event message"): the S3 operation, the
// request id, the caller's access key and address. AsyncLocalStorage costs every promise a little once it is used, so
// nothing runs inside it until `active` is set, which the notification service does while some target exists
// (docs/decisions.md, "Bucket notifications").

import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestOrigin {
  /** The S3 operation name (PutObject, CopyObject, ...) or a Store actor (LifecycleExpiration). */
  operation: string;
  requestId: string;
  /** The access key id, or 'anonymous'. */
  principalId: string;
  sourceIp: string;
}

export class RequestOrigins {
  private readonly storage = new AsyncLocalStorage<RequestOrigin>();
  /** Whether anyone reads origins: runs are plain calls until then. */
  active = false;

  /** Runs `fn` with `origin` as the current origin (synchronously and in everything it awaits) while active. */
  run<T>(origin: RequestOrigin | (() => RequestOrigin), fn: () => T): T {
    if (!this.active) return fn();
    return this.storage.run(typeof origin === 'function' ? origin() : origin, fn);
  }

  /** `fn` bound to the current origin, to run later (a batched transaction body); `fn` itself while inactive. */
  bind<T>(fn: () => T): () => T {
    return this.active ? AsyncLocalStorage.bind(fn) : fn;
  }

  /** The current origin, or undefined outside run(). */
  current(): RequestOrigin | undefined {
    return this.storage.getStore();
  }
}
