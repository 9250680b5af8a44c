// The admin API's error envelope {error, message, statusCode} as an Error the pages can read, and the sentences
// the console shows for the codes that need more than the server's message.

export class ApiError extends Error {
  readonly status: number;
  /** The envelope's `error` (BucketNotEmpty, ValidationError, ...), or 'NetworkError' when nothing answered. */
  readonly code: string;
  /** Seconds from Retry-After on a 429. */
  readonly retryAfter: number | undefined;

  /** `detail` is the message, or the message and the Retry-After seconds of a 429. */
  constructor(status: number, code: string, detail: string | { message: string; retryAfter: number | undefined }) {
    const { message, retryAfter } = typeof detail === 'string' ? { message: detail, retryAfter: undefined } : detail;
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }

  /** A route this server does not have (a feature of a newer or differently built server). */
  get isNotAvailable(): boolean {
    return this.status === 404 && this.code === 'NotFound' && /^No (admin )?route/.test(this.message);
  }
}

/** Reads an error response into an ApiError (the envelope when there is one). */
export async function errorOf(res: Response): Promise<ApiError> {
  let code = `Http${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // not JSON: keep the status line
  }
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, code, {
    message,
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  });
}

/** What to tell a person about an error: the server's message, made kinder for the codes people meet most. */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  switch (err.code) {
    case 'NetworkError':
      return 'The server could not be reached. Check the connection and try again.';
    case 'TooManyRequests':
      return `Too many requests. Try again in ${err.retryAfter ?? 60} seconds.`;
    case 'Forbidden':
      return 'Your role does not allow this. Read-only admins can look at everything but change nothing.';
    case 'Unauthorized':
      return 'Your session has ended. Sign in again.';
    case 'BucketNotEmpty':
      return (
        'The bucket is not empty: it still holds objects, older versions, delete markers or unfinished multipart uploads. ' +
        'Delete them (Buckets > settings > Unfinished uploads for the last) and try again.'
      );
    default:
      return err.message;
  }
}
