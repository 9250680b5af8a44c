// HTTP/1.1 chunked transfer coding for request bodies of unknown length (admin uploads without Content-Length, POST
// Object forms), and the multipart/form-data body of a POST Object with a seeded boundary, so that a seed replays
// the same bytes.

import type { Rng } from './rng.js';

/** `body` in the chunked transfer coding, in pieces of random sizes, ending with the last chunk. */
export function httpChunked(body: Buffer, rng: Rng): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const n = Math.min(body.length - at, rng.int(1, 256 * 1024));
    parts.push(Buffer.from(`${n.toString(16)}\r\n`), body.subarray(at, at + n), Buffer.from('\r\n'));
    at += n;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** A multipart/form-data body: the fields in order, then the file. */
export function formBody(
  fields: Record<string, string>,
  file: Buffer,
  rng: Rng,
): { body: Buffer; contentType: string } {
  const boundary = `----hostile-${rng.bytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  chunks.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
