import { describe, expect, it } from 'vitest';
import {
  backedUpConfig,
  BACKED_UP_PARTS,
  BUCKET_CONFIG_PARTS,
  CONFIG_PART_ACTIONS,
  CONFIG_PART_SUBRESOURCES,
  CONFIG_PARTS,
  checkConfigPartWith,
  configPartsSet,
  DETAILED_PARTS,
  missingConfigPart,
  validateConfigPart,
} from './bucket-config-parts.js';
import { codeOf } from '../../test/helpers/error-code.js';
import { statusOf } from './errors.js';
import { canonicalAction, S3_ACTIONS } from './policy/s3-actions.js';

describe('the bucket configuration parts', () => {
  it('name, for each part S3 serves, its subresource operations and the IAM action each needs', () => {
    expect(CONFIG_PARTS).toEqual([
      'tagging',
      'encryption',
      'lifecycle',
      'cors',
      'policy',
      'ownershipControls',
      'publicAccessBlock',
    ]);
    expect(CONFIG_PART_SUBRESOURCES.ownershipControls.DELETE).toBe('DeleteBucketOwnershipControls');
    expect(CONFIG_PART_ACTIONS.get('DeletePublicAccessBlock')).toBe('s3:PutBucketPublicAccessBlock');
    expect(CONFIG_PART_SUBRESOURCES.lifecycle).toEqual({
      GET: 'GetBucketLifecycleConfiguration',
      PUT: 'PutBucketLifecycleConfiguration',
      DELETE: 'DeleteBucketLifecycle',
    });
    expect(CONFIG_PART_ACTIONS.get('DeleteBucketCors')).toBe('s3:PutBucketCORS');
    expect(CONFIG_PART_ACTIONS.get('DeleteBucketPolicy')).toBe('s3:DeleteBucketPolicy');
    expect(CONFIG_PART_ACTIONS.size).toBe(3 * CONFIG_PARTS.length);
    for (const action of CONFIG_PART_ACTIONS.values()) expect(S3_ACTIONS.has(canonicalAction(action) ?? '')).toBe(true);
  });

  it('answer a part read while unset with its own 404, naming the bucket (the ACL has a default, never read unset)', () => {
    for (const name of [...CONFIG_PARTS, 'objectLock'] as const) {
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
    expect(BACKED_UP_PARTS).toEqual([
      'tagging',
      'encryption',
      'lifecycle',
      'cors',
      'policy',
      'objectLock',
      'ownershipControls',
      'acl',
      'publicAccessBlock',
      'notification',
      'quota',
    ]);
    expect(DETAILED_PARTS).toEqual([
      'tagging',
      'encryption',
      'lifecycle',
      'cors',
      'policy',
      'objectLock',
      'publicAccessBlock',
      'notification',
    ]);
    const config = { cors: { rules: [] }, tagging: [] };
    expect(backedUpConfig(config)).toBe(config);
    expect(configPartsSet({ objectLock: true, config })).toEqual({
      tagging: true,
      encryption: false,
      lifecycle: false,
      cors: true,
      policy: false,
      objectLock: true,
      publicAccessBlock: false,
      notification: false,
    });
  });

  it('check a part against the rest of the configuration: BlockPublicPolicy, and BucketOwnerEnforced with a public bucket ACL', () => {
    const block = {
      blockPublicAcls: false,
      ignorePublicAcls: false,
      blockPublicPolicy: true,
      restrictPublicBuckets: false,
    };
    const publicPolicy = JSON.stringify({
      Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' }],
    });
    expect(
      codeOf(() => checkConfigPartWith('policy', publicPolicy, { config: { publicAccessBlock: block }, bucket: 'b' })),
    ).toBe('AccessDenied');
    expect(() => checkConfigPartWith('policy', publicPolicy, { config: {}, bucket: 'b' })).not.toThrow();
    const publicAcl = { grants: [{ grantee: { kind: 'group', group: 'AllUsers' }, permission: 'READ' }] } as const;
    expect(
      codeOf(() =>
        checkConfigPartWith('ownershipControls', 'BucketOwnerEnforced', { config: { acl: publicAcl }, bucket: 'b' }),
      ),
    ).toBe('InvalidBucketAclWithObjectOwnership');
    expect(() =>
      checkConfigPartWith('ownershipControls', 'ObjectWriter', { config: { acl: publicAcl }, bucket: 'b' }),
    ).not.toThrow();
  });
});
