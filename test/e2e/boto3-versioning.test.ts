// boto3 (Debian's python3-boto3, run by /usr/bin/python3) through versioning and object lock flows against Store:
// the flows live in boto3_versioning.py, which prints one JSON object of observations; this file asserts on them.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { awsClientEnv, runOk } from './support.js';

const store = useStore();
const work = useTempDir('store-e2e-boto3-versioning-');
let versioning: Record<string, unknown>;
let lock: Record<string, unknown>;

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  const env = awsClientEnv(join(work, 'home'), store.server.credentials);
  const res = await runOk(
    '/usr/bin/python3',
    [join(import.meta.dirname, 'boto3_versioning.py'), store.server.url, 'boto3v'],
    { env },
  );
  const result = JSON.parse(res.stdout) as Record<string, Record<string, unknown>>;
  versioning = result['versioning'] as Record<string, unknown>;
  lock = result['lock'] as Record<string, unknown>;
});

describe('boto3 versioning', () => {
  it('put_bucket_versioning Enabled gives each put a new version, readable by id and listed newest first', () => {
    expect(versioning).toMatchObject({
      status: 'Enabled',
      distinctIds: true,
      current: 'second',
      byVersion: 'first',
      listed: [
        [true, true],
        [false, false],
      ],
    });
  });

  it('delete_object adds a delete marker: get is NoSuchKey with the marker header, get by its id 405', () => {
    expect(versioning['marker']).toEqual({ deleteMarker: true, hasId: true });
    expect(versioning['getDeleted']).toEqual(['NoSuchKey', 404, 'true']);
    expect(versioning['getMarkerById']).toEqual(['MethodNotAllowed', 405, 'true']);
    expect(versioning['noSuchVersion']).toEqual(['NoSuchVersion', 404, null]);
  });

  it('deleting the marker restores the object, and copy_object with a VersionId restores an older one', () => {
    expect(versioning).toMatchObject({ restored: 'second', copiedBack: 'first' });
  });

  it('the list_object_versions paginator walks pages of 4 (a key split across pages)', () => {
    expect(versioning['pages']).toEqual([
      ['many/0', 'many/0', 'many/1', 'many/1'],
      ['many/2', 'many/2'],
    ]);
  });

  it('suspended puts write one null version and answer no version id', () => {
    expect(versioning).toMatchObject({ suspendedHeadVersionId: 'null', nullVersions: 1, versionCount: 4 });
    expect(versioning['suspendedPutVersionId']).toBeNull();
  });

  it('a bucket with versions is BucketNotEmpty until object_versions.delete() empties it', () => {
    expect(versioning['deleteNonEmpty']).toEqual(['BucketNotEmpty', 409, null]);
    expect(versioning['bucketGone']).toEqual(['404', 404, null]);
  });
});

describe('boto3 object lock', () => {
  it('create_bucket with ObjectLockEnabledForBucket turns versioning on; the default rule round-trips', () => {
    expect(lock['versioning']).toBe('Enabled');
    expect(lock['config']).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1 } },
    });
    expect(lock['defaultMode']).toBe('GOVERNANCE');
  });

  it('GOVERNANCE blocks deleting a version until BypassGovernanceRetention', () => {
    expect(lock['deleteGoverned']).toEqual(['AccessDenied', 403, null]);
    expect(lock['governedGone']).toEqual(['404', 404, null]);
  });

  it('COMPLIANCE blocks deletion even with bypass and cannot be shortened; a plain delete adds a marker', () => {
    expect(lock['complianceRetention']).toBe('COMPLIANCE');
    expect(lock['deleteCompliant']).toEqual(['AccessDenied', 403, null]);
    expect(lock['shortenCompliant']).toEqual(['AccessDenied', 403, null]);
    expect(lock['plainDelete']).toBe(true);
  });

  it('a legal hold blocks deletion until it is turned off', () => {
    expect(lock['legalHold']).toBe('ON');
    expect(lock['deleteHeld']).toEqual(['AccessDenied', 403, null]);
    expect(lock['heldGone']).toEqual(['404', 404, null]);
  });

  it('locked versions can still be tagged; the bucket cannot be deleted; lock headers need a lock bucket', () => {
    expect(lock['tags']).toEqual([{ Key: 'kept', Value: 'yes' }]);
    expect(lock['deleteBucket']).toEqual(['BucketNotEmpty', 409, null]);
    expect(lock['lockOnPlainBucket']).toEqual(['InvalidRequest', 400, null]);
  });
});
