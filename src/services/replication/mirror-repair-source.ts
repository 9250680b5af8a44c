// The replication mirror as the integrity repair source: a corrupt version is repaired from the remote copy of its
// key. The mirror holds each key's current state only, so a noncurrent version (or a current one the drain has not
// sent yet) usually finds other bytes there; the repair checks size and MD5 before changing anything, so such a copy
// is refused as a mismatch and the version stays listed as corrupt.

import type { Readable } from 'node:stream';
import type { RepairSource } from '../integrity/repair.js';
import { mirrorKey, type RemoteStore } from './remote-store.js';

export function mirrorRepairSource(remote: RemoteStore): RepairSource {
  return {
    async fetch(version, signal): Promise<{ stream: Readable; size: number } | undefined> {
      const key = mirrorKey(version.bucket, version.key);
      const info = await remote.head(key, signal);
      if (info === undefined) return undefined;
      return { stream: await remote.get(key, signal ? { signal } : {}), size: info.size };
    },
  };
}
