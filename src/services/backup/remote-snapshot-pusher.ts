// Pushes a finished scheduled snapshot to the replication target under the reserved backup prefix
// (`.store/backups/<file>`), which replication and listings of user data never touch.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { BACKUP_PREFIX, type RemoteStore } from '../replication/remote-store.js';
import type { SnapshotPusher } from './backup-scheduler.js';

export class RemoteSnapshotPusher implements SnapshotPusher {
  constructor(private readonly remote: RemoteStore) {}

  /** Streams the file to `.store/backups/<name>` (multipart above the client's threshold). Throws RemoteError. */
  async push(name: string, path: string): Promise<void> {
    const { size } = await stat(path);
    await this.remote.put({ key: `${BACKUP_PREFIX}${name}`, body: createReadStream(path), size });
  }
}
