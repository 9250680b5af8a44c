// The end of a hostile run, once the disk is freed: every key the run touched is read back with a well-behaved GET.
// A key written once, acknowledged and never deleted must hold exactly that body; any other key holds one of the
// bodies written to it and not refused, or nothing; every acknowledged version reads back exactly; and a listing
// shows no key that no write could have stored.

import { uriEncode } from '../../../src/sigv4/canonical.js';
import { hash, type Ledger } from './model.js';
import type { RunShared } from './op-context.js';
import { objectPath } from './op-helpers.js';
import { RawClient, type WireRequest } from './raw-client.js';
import { checkRead } from './read-check.js';
import { s3Wire } from './s3-wire.js';

type Check = () => Promise<void>;

/** Runs the checks `concurrency` at a time over `conns`. */
async function runAll(checks: Check[], concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < checks.length; i = next++) await (checks[i] as Check)();
    }),
  );
}

/** Reads everything back; returns the number of requests it sent. Violations go to `run.violations`. */
export async function finalSweep(run: RunShared, opts: { concurrency: number }): Promise<number> {
  const { ledger, server, root, violations } = run;
  const conns = Array.from({ length: opts.concurrency }, () => new RawClient(server.port));
  let sent = 0;
  let turn = 0;
  const get = async (wire: WireRequest) => {
    sent++;
    return (conns[turn++ % conns.length] as RawClient).exchange(wire, { timeoutMs: 60_000 });
  };
  const fail = (detail: string, status?: number): void =>
    violations.add({ invariant: 'final-read-back', op: 'GetObject', fault: 'none', status, detail });

  const checks: Check[] = ledger.allKeys().map(([bucket, key]) => async () => {
    const result = await get(s3Wire(server, { method: 'GET', path: objectPath(bucket, key), identity: root }));
    const response = result.response;
    if (!response) return fail(`${bucket}/${key}: no answer (${result.failure})`);
    const exact = ledger.exact(bucket, key);
    if (exact) {
      const body = exact.bodies[0];
      const what = `${bucket}/${key} was written once (${exact.via}: ${exact.answer}), acknowledged and never deleted`;
      if (response.status !== 200) return fail(`${what}, but reads ${response.status}`, response.status);
      if (body && hash('sha256', response.body) !== body.sha256)
        return fail(`${what}, but reads back ${response.body.length} B that are not its ${body.size} B`, 200);
      return undefined;
    }
    if (response.status === 404) return undefined;
    if (response.status !== 200)
      return fail(
        `${bucket}/${key}: ${response.status} ${response.body.toString('utf8').slice(0, 200)}`,
        response.status,
      );
    const wrong = checkRead(ledger, run.seed, {
      bucket,
      key,
      status: 200,
      headers: response.headers,
      body: response.body,
      isHead: false,
    });
    if (wrong) fail(wrong, 200);
    return undefined;
  });
  for (const attempt of ledger.ackedVersions()) {
    checks.push(async () => {
      const path = `${objectPath(attempt.bucket, attempt.key)}?versionId=${uriEncode(attempt.versionId as string)}`;
      const result = await get(s3Wire(server, { method: 'GET', path, identity: root }));
      const body = attempt.bodies[0];
      const got = result.response;
      if (attempt.bodies.length !== 1 || !body) return;
      if (!got || got.status !== 200 || hash('sha256', got.body) !== body.sha256) {
        const read = got ? `${got.status}, ${got.body.length} B` : result.failure;
        fail(
          `version ${attempt.versionId} of ${attempt.bucket}/${attempt.key} (${attempt.via}) was acknowledged but reads ${read}`,
          got?.status,
        );
      }
    });
  }
  await runAll(checks, opts.concurrency);
  await checkListings(run, get, fail);
  for (const c of conns) c.close();
  return sent;
}

/** Lists both buckets: every key shown must have a write that may have stored it. */
async function checkListings(
  run: RunShared,
  get: (w: WireRequest) => ReturnType<RawClient['exchange']>,
  fail: (d: string, s?: number) => void,
): Promise<void> {
  for (const bucket of [run.buckets.plain, run.buckets.versioned]) {
    let token: string | undefined;
    do {
      const query = `list-type=2&max-keys=1000${token ? `&continuation-token=${uriEncode(token)}` : ''}`;
      const result = await get(s3Wire(run.server, { method: 'GET', path: `/${bucket}?${query}`, identity: run.root }));
      const text = result.response?.body.toString('utf8') ?? '';
      if (result.response?.status !== 200) {
        fail(`ListObjectsV2 ${bucket}: ${result.response?.status ?? result.failure}`, result.response?.status);
        break;
      }
      for (const [, key] of text.matchAll(/<Key>([^<]*)<\/Key>/g)) {
        if (key !== undefined && !hasLiveWrite(run.ledger, bucket, unescapeXml(key)))
          fail(`${bucket} lists ${key}, which no write could have stored`);
      }
      token = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(text)?.[1];
    } while (token !== undefined);
  }
}

function hasLiveWrite(ledger: Ledger, bucket: string, key: string): boolean {
  return ledger.candidates(bucket, key).length > 0;
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
