// Reads a POST Object form (multipart/form-data) with busboy: the fields before the `file` field are collected
// (bounded), then the file is handed over as a stream, never buffered. As in S3, the file must be the last field and
// anything after it is ignored.

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError } from '../../core/errors.js';

/** Names and values of the fields before the file, at most this many bytes together. */
export const MAX_PRE_DATA_BYTES = 64 * 1024;
const MAX_FIELDS = 200;

export interface FormFile {
  stream: Readable;
  /** The filename the browser sent (for ${filename}); undefined for a text `file` field. */
  filename: string | undefined;
  /**
   * Resolves once the whole request body has arrived (what follows the file is read and ignored, as S3 does);
   * rejects when the request ends short of its Content-Length (the client went away). The file's last bytes may
   * arrive before the form is over: a reader must not commit the file before this resolves, or a client that never
   * finished its request (and was never answered) would find the object stored.
   */
  bodyRead: Promise<void>;
}

/** Form fields by lower-case name (S3 reads form field names without regard to case). */
export type FormFields = ReadonlyMap<string, string>;

const tooMuchPreData = (): AppError => new AppError('MaxPostPreDataLengthExceededError');

/**
 * The error for a form that ended without a file: the key first (S3's wording says the field order may be the
 * cause), then the file itself.
 */
function noFile(fields: FormFields): AppError {
  if (!fields.has('key')) return missingField('key');
  return new AppError('InvalidArgument', {
    message: 'POST requires exactly one file upload per request.',
    details: { ArgumentName: 'file', ArgumentValue: '0' },
  });
}

/** S3's InvalidArgument for a required form field that is absent (or came after the file). */
export function missingField(name: string): AppError {
  return new AppError('InvalidArgument', {
    message: `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`,
    details: { ArgumentName: name, ArgumentValue: '' },
  });
}

function ignoreUnreadFailure(): void {
  // Intentionally empty: see startFile in readPostForm.
}

/**
 * Parses the form and calls `onFile` once, when the `file` field starts, with the fields read so far; resolves with
 * its result once the whole request body has been read. Throws MalformedPOSTRequest for a body that is not
 * well-formed multipart/form-data, MaxPostPreDataLengthExceededError for fields over 64 KiB (or 200 of them),
 * InvalidArgument for a missing key or file, a repeated field, or a file part not named `file`, and whatever
 * `onFile` throws. If the client goes away mid-file the file stream fails, so `onFile` never waits forever.
 */
export function readPostForm<T>(
  req: IncomingMessage,
  onFile: (fields: FormFields, file: FormFile) => Promise<T>,
): Promise<T> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { fieldSize: MAX_PRE_DATA_BYTES, fields: MAX_FIELDS, files: 1, parts: MAX_FIELDS + 1, headerPairs: 16 },
    });
  } catch (err) {
    throw new AppError('MalformedPOSTRequest', { cause: err });
  }
  const bb = parser;
  let bodyReadSettled = false;
  let settleBodyRead: (err?: unknown) => void = () => undefined;
  const bodyRead = new Promise<void>((resolve, reject) => {
    settleBodyRead = (err) => {
      if (bodyReadSettled) return;
      bodyReadSettled = true;
      if (err === undefined) resolve();
      else reject(err);
    };
  });
  // Nobody may be waiting (the upload failed first): a rejection here is never unhandled.
  bodyRead.catch(() => undefined);
  /** The request's end: complete (every declared byte arrived), or short (the client stopped sending). */
  const endOfBody = (): void => settleBodyRead(req.complete ? undefined : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const fields = new Map<string, string>();
    let preData = 0;
    let state: 'fields' | 'file' | 'settled' = 'fields';
    let result: { value: T } | undefined;
    let formDone = false;

    const fail = (err: unknown): void => {
      if (state === 'settled') return;
      state = 'settled';
      req.unpipe(bb);
      // Whatever the parser still finds has nobody left to report to.
      bb.on('error', () => undefined);
      reject(err);
    };
    const succeedWhenDone = (): void => {
      if (state === 'file' && result !== undefined && formDone) {
        state = 'settled';
        resolve(result.value);
      }
    };
    const startFile = (file: FormFile): void => {
      state = 'file';
      // The file stream fails when the client goes away or the form breaks, possibly before onFile reads it (it is
      // still checking the policy or the free space). The failure reaches the reader through iteration; this listener
      // only keeps an unread failure from being an unhandled 'error' event, which would end the process.
      file.stream.on('error', ignoreUnreadFailure);
      onFile(fields, file).then((value) => {
        result = { value };
        succeedWhenDone();
      }, fail);
    };

    bb.on('field', (name, value, info) => {
      if (state !== 'fields') return;
      const lower = name.toLowerCase();
      if (info.nameTruncated || info.valueTruncated) return fail(tooMuchPreData());
      if (lower === 'file')
        return startFile({ stream: Readable.from([Buffer.from(value, 'utf8')]), filename: undefined, bodyRead });
      preData += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (preData > MAX_PRE_DATA_BYTES) return fail(tooMuchPreData());
      if (fields.has(lower)) {
        return fail(
          new AppError('InvalidArgument', {
            message: `The form field '${name}' appears more than once.`,
            details: { ArgumentName: name },
          }),
        );
      }
      fields.set(lower, value);
    });
    bb.on('file', (name, stream, info) => {
      if (state !== 'fields') {
        stream.resume();
        return;
      }
      if (name.toLowerCase() !== 'file') {
        stream.resume();
        return fail(
          new AppError('InvalidArgument', {
            message: `Only the form field named 'file' may carry a file; found a file in '${name}'.`,
            details: { ArgumentName: name },
          }),
        );
      }
      startFile({ stream, filename: info.filename, bodyRead });
    });
    const overLimit = (): void => {
      if (state === 'fields') fail(tooMuchPreData());
    };
    bb.on('fieldsLimit', overLimit);
    bb.on('partsLimit', overLimit);
    bb.on('error', (err: unknown) => {
      // Before the file: a malformed form. During the file: the file stream fails too, and onFile reports it.
      // After the file was stored: the epilogue is ignored, as S3 ignores everything after the file.
      if (state === 'fields') fail(new AppError('MalformedPOSTRequest', { cause: err }));
      formDone = true;
      endOfBody();
      succeedWhenDone();
    });
    bb.on('close', () => {
      formDone = true;
      endOfBody();
      if (state === 'fields') fail(noFile(fields));
      else succeedWhenDone();
    });
    req.once('close', () => {
      // A client that went away mid-body: fail the file stream instead of leaving its reader waiting.
      if (!req.complete) {
        bb.destroy(new Error('aborted'));
        settleBodyRead(new Error('aborted'));
      }
    });
    req.pipe(bb);
  });
}
