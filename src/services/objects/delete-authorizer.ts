// Who may delete each key of a batch delete: the required `authorize` argument of ObjectService.deleteBatch, so that
// no caller can delete a batch without deciding it per key (DeleteObjects has no request-level check).

/** One key of a batch delete, as its authorizer sees it. */
export interface DeleteTarget {
  bucket: string;
  key: string;
  versionId: string | undefined;
  bypassGovernance: boolean;
}

/**
 * Decides one key of a batch delete before it is deleted: returns to let it go, or throws a client AppError
 * (AccessDenied) that becomes that key's outcome while the others still go. The S3 plane checks each key against
 * the caller's policies (http/s3/authorize.ts deleteAuthorizer).
 */
export type DeleteAuthorizer = (target: DeleteTarget) => void;

/** For a caller that authorized the whole batch already (the admin API's role guard): every key may go. */
export const ALLOW_EVERY_KEY: DeleteAuthorizer = () => undefined;
