// Waits until a readable stream has its first bytes (or has ended) before a response commits to a status: a body
// that fails to open or fails on its first read is then answered with an error status instead of a cut connection.

import type { Readable } from 'node:stream';

/**
 * Resolves once `stream` has data buffered or has ended; rejects with the error it fails with first. The bytes stay
 * in the stream (the first chunk is put back), which is left paused for the caller to pipe. Costs one event on success.
 */
export function firstBytes(stream: Readable): Promise<void> {
  if (stream.errored) return Promise.reject(stream.errored);
  if (stream.readableLength > 0 || stream.readableEnded) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const settle = (err?: Error | null): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    // A 'data' listener (not 'readable', which leaves the stream in paused mode and made large bodies flow at about
    // two thirds of their speed): the first chunk is taken, the stream paused, and the chunk put back at its head.
    const onData = (chunk: Buffer): void => {
      stream.pause();
      stream.unshift(chunk);
      settle();
    };
    const onEnd = (): void => settle();
    const onError = (err: Error): void => settle(err);
    const onClose = (): void => settle(stream.errored ?? new Error('the stream closed before its first bytes'));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
