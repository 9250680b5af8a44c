// Crash loop (issue 11): versioning, replication (to a second Store), webhooks (to a real receiver) and audit on, a
// mixed workload, and kill -9 at a random moment, CRASH_LOOP_ROUNDS times (default 50). After each kill the
// invariants are checked and printed (test/helpers/crash-checks.ts); at the end the mirror and the receiver must
// have caught up with everything. Builds on test/integration/durability.test.ts (three kills of plain PUTs).

import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import {
  checkAfterKill,
  checkIntents,
  verifyThroughS3,
  waitForNoOrphans,
  type KillReport,
} from '../helpers/crash-checks.js';
import { CrashModel } from '../helpers/crash-model.js';
import { runUntilKilled } from '../helpers/crash-workload.js';
import { readDbSnapshot } from '../helpers/data-dir-inspect.js';
import { replicationEnv, startStoreTarget, waitFor } from '../helpers/replication.js';
import type { RunningServer } from '../helpers/server.js';
import { startStore, type Store } from '../helpers/store.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const ROUNDS = Number(process.env['CRASH_LOOP_ROUNDS'] ?? 50);
/** A full byte-exact read of every version every this many rounds (and at the end); otherwise what changed. */
const FULL_CHECK_EVERY = 10;
const AUDIT_FLUSH_MS = 250;
const READY_LIMIT_MS = 5000;

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks: USER_HZ is 100 on Linux
}

/**
 * Spawn to a 200 from the readiness probe: the wall-clock time, the CPU time the boot took, and the limit for the
 * wall clock: 5 s, stretched by the load average beyond the cores (other work on a shared machine).
 */
async function timedRestart(
  store: Store,
): Promise<{ server: RunningServer; readyMs: number; cpuMs: number; limitMs: number }> {
  const start = Date.now();
  const server = await store.restart();
  for (;;) {
    const res = await fetch(`${server.url}/api/admin/ready`).catch(() => undefined);
    if (res?.status === 200) {
      const readyMs = Date.now() - start;
      const load = Math.max(1, (loadavg()[0] ?? 0) / cpus().length);
      return {
        server,
        readyMs,
        cpuMs: cpuMs(server.process.pid as number),
        limitMs: Math.round(READY_LIMIT_MS * load),
      };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function summary(
  { round, killAt }: { round: number; killAt: number },
  r: { acked: number; unknown: number; kinds: Record<string, number> },
  k: KillReport,
): string {
  return (
    `round ${String(round).padStart(2)}/${ROUNDS}: kill at ${killAt} ms after ${r.acked} acked ops ` +
    `(${Object.entries(r.kinds)
      .map(([n, c]) => `${n} ${c}`)
      .join(', ')}); ${r.unknown} cut off: ${k.applied} committed, ` +
    `${k.notApplied} not; integrity ${k.integrity}; ${k.versions} versions; ${k.webhookRows} webhook rows match the ` +
    `committed history; intents: ${k.pendingIntents} pending, ${k.mirrored} keys mirrored; audit rows checked ${k.auditChecked}`
  );
}

describe('crash loop', () => {
  it(`keeps every invariant across ${ROUNDS} kill -9s of a mixed workload with versioning, replication, webhooks and audit`, async () => {
    const { target } = await startStoreTarget();
    const secret = randomBytes(24).toString('base64url');
    const receiver = await WebhookReceiver.start(secret);
    onTestFinished(() => receiver.close());

    const store = await startStore({
      env: {
        ...replicationEnv(target),
        WEBHOOK_URL: receiver.url,
        WEBHOOK_SECRET: secret,
        WEBHOOK_POLL_MS: '200',
        WEBHOOK_TIMEOUT_MS: '2000',
        AUDIT_FLUSH_MS: String(AUDIT_FLUSH_MS),
      },
    });
    const model = new CrashModel();
    const versioned = uniqueBucket('ver');
    const plain = uniqueBucket('plain');
    const keys = Array.from({ length: 14 }, (_, i) =>
      i % 5 === 4 ? `dir/sub dir/ü-${i}` : `k${String(i).padStart(2, '0')}`,
    );
    await store.s3.send(new CreateBucketCommand({ Bucket: versioned }));
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await store.s3.send(new CreateBucketCommand({ Bucket: plain }));
    model.addBucket(versioned, true, keys);
    model.addBucket(plain, false, keys);
    // The access token outlives the run (15 min) and JWT_SECRET stays the same across restarts: one sign-in.
    const adminToken = await store.admin();

    const readyTimes: number[] = [];
    const totals = { acked: 0, cutOff: 0, committed: 0, orphansSwept: 0, readBack: 0 };
    for (let round = 1; round <= ROUNDS; round++) {
      // Now and then right after the boot, while the replication and webhook backlogs drain and boot GC runs.
      const killAt = round % 7 === 3 ? randomInt(0, 60) : randomInt(100, 1500);
      const outcome = await runUntilKilled({ server: store.server, model, adminToken, killAfterMs: killAt });
      const report = await checkAfterKill({
        dataDir: store.dataDir,
        model,
        outcome,
        target,
        killedAt: outcome.killedAt,
        auditSlackMs: AUDIT_FLUSH_MS + 750,
      });
      console.log(
        summary(
          { round, killAt },
          { acked: outcome.acked, unknown: outcome.unknown.size, kinds: outcome.kinds },
          report,
        ),
      );
      expect(outcome.failures, `round ${round}: failures while the server was up`).toEqual([]);
      expect(report.problems, `round ${round}`).toEqual([]);
      totals.acked += outcome.acked;
      totals.cutOff += outcome.unknown.size;
      totals.committed += report.applied;

      const restarted = await timedRestart(store);
      const server = restarted.server;
      readyTimes.push(restarted.readyMs);
      expect(readdirSync(join(server.dataDir, 'tmp')), 'tmp/ is emptied at boot').toEqual([]);
      const full = round % FULL_CHECK_EVERY === 0 || round === ROUNDS;
      const verified = await verifyThroughS3(store.s3, model, full).catch((err: unknown) => {
        throw new Error(
          `round ${round}: read-back failed (${String(err)}); server exit ${server.process.exitCode ?? server.process.signalCode}, ` +
            `output:\n${server.output().slice(-4000)}`,
        );
      });
      const gc = await waitForNoOrphans(server.dataDir, 10_000);
      totals.readBack += verified.read;
      console.log(
        `  restart: ready in ${(restarted.readyMs / 1000).toFixed(2)} s (boot CPU ${(restarted.cpuMs / 1000).toFixed(2)} s, limit ` +
          `${(restarted.limitMs / 1000).toFixed(1)} s); read back ${verified.read} versions ` +
          `(${full ? 'all' : 'changed'}) byte-exact; blob files ${gc.files} = referenced after ${gc.waitedMs} ms of boot GC`,
      );
      expect(verified.problems, `round ${round}: read back through S3`).toEqual([]);
      expect({ orphans: gc.orphans, missing: gc.missing }, `round ${round}: blob files vs references`).toEqual({
        orphans: [],
        missing: [],
      });
      expect(restarted.cpuMs, `round ${round}: CPU time of the boot`).toBeLessThan(READY_LIMIT_MS);
      expect(restarted.readyMs, `round ${round}: spawn to ready`).toBeLessThan(restarted.limitMs);
    }

    // Nothing lost downstream: the mirror and the receiver catch up with every committed change.
    await waitFor(
      'the outboxes to drain',
      () => {
        const snap = readDbSnapshot(store.dataDir, { integrity: false });
        return snap.replication.size === 0 && snap.webhooks.every((w) => w.status !== 'pending');
      },
      { timeoutMs: 90_000, everyMs: 250 },
    );
    const snap = readDbSnapshot(store.dataDir);
    const final: KillReport = {
      integrity: snap.integrity.join(';'),
      applied: 0,
      notApplied: 0,
      versions: 0,
      webhookRows: 0,
      pendingIntents: 0,
      mirrored: 0,
      auditChecked: 0,
      problems: [],
    };
    await checkIntents({ model, snap, target, report: final, requireMirrored: true });
    const undelivered = snap.webhooks.filter(
      (w) => !receiver.accepted.has(w.deliveryId) || receiver.accepted.get(w.deliveryId)?.body.toString() !== w.body,
    );
    const sorted = [...readyTimes].sort((a, b) => a - b);
    console.log(
      `crash loop: ${ROUNDS} kills, ${totals.acked} acknowledged ops, ${totals.cutOff} cut off (${totals.committed} of them committed), ` +
        `${totals.readBack} version reads byte-exact; ready after restart median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms; ` +
        `final: ${final.mirrored} keys mirrored, ${snap.webhooks.length} webhook rows all delivered (${receiver.duplicates} re-sends deduped, ` +
        `${receiver.badSignatures} bad signatures), integrity ${final.integrity}`,
    );
    expect(final.problems).toEqual([]);
    expect(final.integrity).toBe('ok');
    expect(undelivered.map((w) => w.body)).toEqual([]);
    expect(snap.webhooks.every((w) => w.status === 'delivered')).toBe(true);
    expect(receiver.badSignatures).toBe(0);
    expect(await store.stop()).toBe(0);
  }, 540_000); // about 2.5 min on 2 idle cores; room for a shared, loaded machine
});
