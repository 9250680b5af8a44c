import { describe, expect, it } from 'vitest';
import { noSuchBucket } from './errors.js';

describe('noSuchBucket', () => {
  it('is NoSuchBucket (404) naming the bucket as resource and BucketName, as S3 answers it', () => {
    const err = noSuchBucket('photos');
    expect(err.code).toBe('NoSuchBucket');
    expect(err.statusCode).toBe(404);
    expect(err.resource).toBe('/photos');
    expect(err.details).toEqual({ BucketName: 'photos' });
  });
});
