// How internal readers (copies, backups, the integrity scrubber) read a tiered stub's bytes: streamed from its copy on
// the remote target. It needs only the remote, so the composition root builds it before the object service, which
// takes it as a constructor input (docs/replication.md "Tiering").

import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../core/errors.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { StubReader } from '../objects/object-service.js';
import { RemoteError, type RemoteStore } from '../replication/remote-store.js';

export class RemoteStubReader implements StubReader {
  /** `remote` undefined: no target is configured, so a stub (left from before) fails InvalidObjectState. */
  constructor(private readonly remote: RemoteStore | undefined) {}

  /** A stub's bytes (or a range) streamed from its remote copy; errors arrive on the stream. */
  stream(row: ObjectRow, range?: { start: number; end: number }): Readable {
    const out = new PassThrough({ highWaterMark: 1024 * 1024 });
    const remote = this.remote;
    if (!remote || row.tierKey === undefined) {
      queueMicrotask(() =>
        out.destroy(
          new AppError('InvalidObjectState', { message: 'The object is tiered and tiering is not enabled.' }),
        ),
      );
      return out;
    }
    // A reader that goes away (an aborted copy or backup) cancels the request, even one still waiting for its answer.
    const cancel = new AbortController();
    out.once('close', () => cancel.abort());
    remote.get(row.tierKey, { ...(range ? { range } : {}), signal: cancel.signal }).then(
      (body) => {
        if (out.destroyed) body.destroy();
        else
          pipeline(body, out).catch((err: unknown) =>
            out.destroy(err instanceof Error ? err : new RemoteError('unknown')),
          );
      },
      (err: unknown) => out.destroy(err instanceof Error ? err : new RemoteError('unknown')),
    );
    return out;
  }
}
