import { describe, expect, it } from 'vitest';
import {
  backedUpConfig, BACKED_UP_PARTS, BUCKET_CONFIG_PARTS, CONFIG_PART_ACTIONS, CONFIG_PART_SUBRESOURCES, CONFIG_PARTS,
  configPartsSet, DETAILED_PARTS, missingConfigPart, validateConfigPart,
} from './bucket-config-parts.js';
import { statusOf } from './errors.js';
import { canonicalAction, S3_ACTIONS } from './policy/s3-actions.js';

describe('the bucket configuration parts', () => {
  it('name, for each part S3 serves, its subresource operations and the IAM action each needs', () => {
    expect(CONFIG_PARTS).toEqual(['tagging', 'encryption', 'lifecycle', 'cors', 'policy']);
    expect(CONFIG_PART_SUBRESOURCES.lifecycle).toEqual({
      GET: 'GetBucketLifecycleConfiguration', PUT: 'PutBucketLifecycleConfiguration', DELETE: 'DeleteBucketLifecycle',
    });
    expect(CONFIG_PART_ACTIONS.get('DeleteBucketCors')).toBe('s3:PutBucketCORS');
    expect(CONFIG_PART_ACTIONS.get('DeleteBucketPolicy')).toBe('s3:DeleteBucketPolicy');
    expect(CONFIG_PART_ACTIONS.size).toBe(3 * CONFIG_PARTS.length);
    for (const action of CONFIG_PART_ACTIONS.values()) expect(S3_ACTIONS.has(canonicalAction(action) ?? '')).toBe(true);
  });

  it('answer a part read while unset with its own 404, naming the bucket', () => {
    for (const name of Object.keys(BUCKET_CONFIG_PARTS) as (keyof typeof BUCKET_CONFIG_PARTS)[]) {
      expect(statusOf(BUCKET_CONFIG_PARTS[name].missing)).toBe(404);
    }
    const err = missingConfigPart('cors', 'b');
    expect(err.code).toBe('NoSuchCORSConfiguration');
    expect(err.details).toEqual({ BucketName: 'b' });
  });

  it('validate with the core model of each part', () => {
    expect(() => validateConfigPart('tagging', [{ key: 'aws:x', value: 'v' }], 'b')).toThrow();
    expect(() => validateConfigPart('policy', '{"not":"a policy"}', 'b')).toThrow();
    expect(() => validateConfigPart('encryption', { sseAlgorithm: 'AES256' }, 'b')).not.toThrow();
  });

  it('are all carried by backups, unchanged, and all shown in the admin details (object lock by the bucket flag)', () => {
    expect(BACKED_UP_PARTS).toEqual(['tagging', 'encryption', 'lifecycle', 'cors', 'policy', 'objectLock']);
    expect(DETAILED_PARTS).toEqual(BACKED_UP_PARTS);
    const config = { cors: { rules: [] }, tagging: [] };
    expect(backedUpConfig(config)).toBe(config);
    expect(configPartsSet({ objectLock: true, config })).toEqual({
      tagging: true, encryption: false, lifecycle: false, cors: true, policy: false, objectLock: true,
    });
  });
});
