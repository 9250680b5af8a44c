// Replication carries an object's canned ACL where the target takes ACLs (a second Store whose mirror bucket has ACLs
// enabled): a public-read object is public on the target too, a private one stays private, and a PutObjectAcl on the
// current version follows. A target that refuses ACLs
// (BucketOwnerEnforced) gets the bytes all the same, its copy private, and the intent does not fail.

import {
  CreateBucketCommand,
  PutBucketOwnershipControlsCommand,
  PutObjectAclCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  remoteObject,
  replicationEnv,
  replicationStatus,
  sha256,
  useStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { useStore } from '../helpers/store.js';

const target = useStoreTarget({ env: { STORE_DEFAULT_OBJECT_OWNERSHIP: 'ObjectWriter' } });
const source = useStore(() => ({ env: replicationEnv(target.target) }));

async function drained(): Promise<void> {
  await waitFor('the outbox to drain', async () => {
    const st = await replicationStatus(source.server, await source.admin());
    return st.outbox.pending + st.outbox.inflight === 0 && st.outbox.failed === 0;
  });
}

const anonymousOnTarget = async (key: string): Promise<number> =>
  (await fetch(`${target.server.url}/${target.target.bucket}/${key}`)).status;

beforeAll(async () => {
  await source.s3.send(new CreateBucketCommand({ Bucket: 'shared', ObjectOwnership: 'ObjectWriter' }));
});

describe('replication of ACLs', () => {
  it("sends a public-read object's canned ACL: the copy is public on the target; a private object stays private", async () => {
    await source.s3.send(
      new PutObjectCommand({ Bucket: 'shared', Key: 'public.txt', Body: 'for everyone', ACL: 'public-read' }),
    );
    await source.s3.send(new PutObjectCommand({ Bucket: 'shared', Key: 'private.txt', Body: 'for me' }));
    await drained();
    expect(await remoteObject(target.target, 'shared/public.txt')).toMatchObject({ sha256: sha256('for everyone') });
    expect(await anonymousOnTarget('shared/public.txt')).toBe(200);
    expect(await anonymousOnTarget('shared/private.txt')).toBe(403);
  });

  it('follows PutObjectAcl on the current version: public on the target, then private again', async () => {
    await source.s3.send(new PutObjectAclCommand({ Bucket: 'shared', Key: 'private.txt', ACL: 'public-read' }));
    await drained();
    expect(await anonymousOnTarget('shared/private.txt')).toBe(200);
    await source.s3.send(new PutObjectAclCommand({ Bucket: 'shared', Key: 'private.txt', ACL: 'private' }));
    await drained();
    expect(await anonymousOnTarget('shared/private.txt')).toBe(403);
  });

  it('a target that refuses ACLs gets the bytes, its copy private, and nothing fails', async () => {
    await target.store.s3.send(
      new PutBucketOwnershipControlsCommand({
        Bucket: target.target.bucket,
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    );
    await source.s3.send(
      new PutObjectCommand({ Bucket: 'shared', Key: 'refused.txt', Body: 'bytes arrive', ACL: 'public-read' }),
    );
    await drained();
    expect(await remoteObject(target.target, 'shared/refused.txt')).toMatchObject({ sha256: sha256('bytes arrive') });
    expect(await anonymousOnTarget('shared/refused.txt')).toBe(403);
    expect((await replicationStatus(source.server, await source.admin())).outbox.failed).toBe(0);
  });
});
