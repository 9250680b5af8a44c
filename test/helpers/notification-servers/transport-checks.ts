// Assertions shared by the notification-transport tests: a rejection names its failure class and leaks no secret;
// a closed transport leaves no socket or timer behind.

import { expect } from 'vitest';
import type { NotificationDelivery } from '../../../src/services/notifications/transports/transport.js';
import { liveHandles } from './child-server.js';

/** Awaits `work`, expecting a rejection whose message starts with `failureClass` and contains none of `secrets`. */
export async function expectFailure(work: Promise<unknown>, failureClass: string, secrets: string[]): Promise<Error> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'send() should reject').toBeInstanceOf(Error);
  const e = err as Error;
  expect(e.message.startsWith(`${failureClass}: `), e.message).toBe(true);
  const text = `${e.message} ${e.stack ?? ''} ${JSON.stringify(e)}`;
  for (const secret of secrets) expect(text).not.toContain(secret);
  return e;
}

/** Runs `use` and then checks the sockets and timers it opened are gone (polled: closes are reported a tick late). */
export async function expectNoLeftovers(use: () => Promise<void>): Promise<void> {
  const before = liveHandles();
  await use();
  await expect.poll(() => liveHandles().sockets, { timeout: 5000 }).toBeLessThanOrEqual(before.sockets);
  await expect.poll(() => liveHandles().timers, { timeout: 5000 }).toBeLessThanOrEqual(before.timers);
}

let seq = 0;

/** A delivery as the outbox would hand it over: an AWS event message for `key`. */
export function delivery(key: string, eventName = 's3:ObjectCreated:Put', bucket = 'photos'): NotificationDelivery {
  seq += 1;
  const body = JSON.stringify({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventTime: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
        eventName: eventName.replace(/^s3:/, ''),
        s3: {
          bucket: { name: bucket },
          object: { key: encodeURIComponent(key), sequencer: String(seq).padStart(16, '0') },
        },
      },
    ],
  });
  return { body, key, eventName, bucket };
}
