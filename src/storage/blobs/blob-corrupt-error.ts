// The one error the blob store raises for bytes that are missing or fail authentication.
// Services map it to a client error (typically InternalError) and the scrubber records it.

export type BlobCorruptReason = 'missing' | 'tampered' | 'truncated' | 'header';

/**
 * A blob that cannot be returned intact: `missing` (no file), `tampered` (a segment tag fails, or the file is
 * longer than its recorded size), `truncated` (the file is shorter than its recorded size), `header` (bad magic,
 * version or segment size, or the data key does not unwrap, e.g. a different master key).
 * The message names the blob id only: never a key, an object name or key material.
 */
export class BlobCorruptError extends Error {
  readonly code = 'EBLOBCORRUPT';

  constructor(
    readonly reason: BlobCorruptReason,
    readonly blobId: string,
    { detail, cause }: { detail?: string; cause?: unknown } = {},
  ) {
    super(
      `blob ${blobId} is corrupt (${reason})${detail ? `: ${detail}` : ''}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'BlobCorruptError';
  }
}
