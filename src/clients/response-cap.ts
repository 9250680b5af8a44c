// A cap on what the SDK reads into memory from the remote target. The SDK collects every response body except
// GetObject's whole before parsing it (an error document, a list page, the body of a PutObject answer), so a target
// answering with an endless body would be buffered until the process runs out of memory. Bodies over the caps
// fail the request instead (classified 'server-error', docs/replication.md "Timeouts and limits").

import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { S3Client, ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/client-s3';
// Types only (erased at build): the SDK's middleware interfaces live in its own dependency.
import type { DeserializeMiddleware } from '@smithy/types';

/** Larger than any S3 answer to a write, a HEAD or a DELETE (an ETag, an error document of a few hundred bytes). */
export const MAX_RESPONSE_BODY_BYTES = 1024 * 1024;
/** A list page: 1,000 keys of 1,024 bytes, XML-escaped, with their sizes and ETags, is ~7 MiB at worst. */
export const MAX_LIST_RESPONSE_BODY_BYTES = 16 * 1024 * 1024;

/** The error a capped body fails with (its name is what classifyRemoteError looks at). */
export class ResponseTooLargeError extends Error {
  constructor() {
    super('the remote target sent a response body larger than Store reads');
    this.name = 'ResponseTooLarge';
  }
}

function capped(body: Readable, limit: number): Readable {
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) {
        body.destroy();
        done(new ResponseTooLargeError());
        return;
      }
      done(null, chunk);
    },
  });
  body.on('error', (err) => out.destroy(err));
  return body.pipe(out);
}

function isReadable(value: unknown): value is Readable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Readable).pipe === 'function' &&
    typeof (value as Readable).on === 'function'
  );
}

/**
 * Puts the cap on every response body of `client` except GetObject's (object bytes, streamed to their reader):
 * MAX_LIST_RESPONSE_BODY_BYTES for a List* command, MAX_RESPONSE_BODY_BYTES for the others.
 */
export function capResponseBodies(client: S3Client): void {
  const cap: DeserializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
    const out = await next(args);
    const response = out.response as { body?: unknown };
    const name = context.commandName ?? '';
    if (name !== 'GetObjectCommand' && isReadable(response.body)) {
      response.body = capped(
        response.body,
        name.startsWith('List') ? MAX_LIST_RESPONSE_BODY_BYTES : MAX_RESPONSE_BODY_BYTES,
      );
    }
    return out;
  };
  client.middlewareStack.addRelativeTo(
    cap,
    // Between the deserializer and the transport: the deserializer reads the capped body.
    { relation: 'after', toMiddleware: 'deserializerMiddleware', name: 'storeResponseBodyCap', override: true },
  );
}
