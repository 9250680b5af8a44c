// @ts-check
// What the notification modes (`--notify-ab`, `--notify-cost`, `--notify-outage`) do to a Store: start it with an
// admin password they know and /metrics open, log in to the admin API, create notification targets, point the bench
// bucket's notification configuration at them, and poll each target's delivery status until its queue drains
// (docs/notifications.md; docs/admin-api.md, "Notification targets").

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BenchClient, createSigner } from './client.mjs';
import { accessKeyId20, base64url40, makeTempRoot, startServer } from './servers.mjs';
import { chooseSignRequest, prepareTarget, storeSecrets } from './stores.mjs';
import { BUCKET } from './workloads.mjs';

/**
 * @typedef {{ id: string, kind: string, arn: string, status: { queued: number, delivered: number, failed: number,
 *   lastErrorClass: string | null, oldestPendingAgeSeconds: number | null } }} TargetInfo
 * @typedef {{ baseUrl: string, token: string, password: string }} Admin  password: to log in again when the
 *   access token (900 s) has expired in a long drain
 */

/**
 * Starts one Store per label, each on a fresh data dir under one temp root, with the same fresh root credentials,
 * a known admin password and METRICS_MODE=public (loopback only); creates the bench buckets and logs in.
 * @param {import('./options.mjs').Options} opts @param {string[]} labels
 */
export async function startNotifyStores(opts, labels) {
  const signRequest = await chooseSignRequest({ ...opts, signer: opts.signer === 'auto' ? 'real' : opts.signer });
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  const password = base64url40();
  const tempRoot = await makeTempRoot(opts.tmpDir);
  const out = [];
  for (const [i, label] of labels.entries()) {
    const dataDir = path.join(tempRoot, `store-${i}`);
    await mkdir(dataDir);
    const server = await startServer({
      label,
      cmd: opts.storeCmd,
      env: {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        METRICS_MODE: 'public',
        ...(await storeSecrets(accessKeyId, secretAccessKey, password)),
      },
    });
    const target = await prepareTarget(server, sign);
    out.push({ server, target, admin: await login(server.baseUrl, password) });
  }
  return out;
}

/** POST /api/admin/auth/login as the bootstrap admin. @param {string} baseUrl @param {string} password */
async function login(baseUrl, password) {
  const res = await fetch(`${baseUrl}/api/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const body = /** @type {{ accessToken?: string }} */ (await res.json());
  if (res.status !== 200 || !body.accessToken) throw new Error(`admin login: ${res.status} ${JSON.stringify(body)}`);
  return { baseUrl, token: body.accessToken, password };
}

/**
 * One admin API call; throws on a status other than `expect`.
 * @param {Admin} admin @param {{ method?: string, route: string, body?: unknown, expect?: number }} req
 */
async function adminCall(admin, { method = 'GET', route, body, expect = 200 }) {
  const send = () =>
    fetch(`${admin.baseUrl}/api/admin${route}`, {
      method,
      headers: { authorization: `Bearer ${admin.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  let res = await send();
  if (res.status === 401) {
    await res.arrayBuffer();
    admin.token = (await login(admin.baseUrl, admin.password)).token;
    res = await send();
  }
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} /api/admin${route}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Creates a target; resolves to its ARN. @param {Admin} admin
 * @param {{ id: string, kind: string, config: Record<string, unknown> }} target
 * @returns {Promise<string>}
 */
export async function createTarget(admin, target) {
  return /** @type {TargetInfo} */ (
    await adminCall(admin, { method: 'POST', route: '/notification-targets', body: target, expect: 201 })
  ).arn;
}

/** Every target with its delivery status. @param {Admin} admin @returns {Promise<TargetInfo[]>} */
export async function targetStatus(admin) {
  return /** @type {{ items: TargetInfo[] }} */ (await adminCall(admin, { route: '/notification-targets' })).items;
}

/**
 * PutBucketNotificationConfiguration on the bench bucket: each rule `{ arn, suffix? }` for `s3:ObjectCreated:*`.
 * Store refuses two rules whose events and filters overlap, as AWS does, even to different targets
 * (docs/notifications.md, "The S3 API"), so several targets share the keys by suffix.
 * @param {import('./workloads.mjs').Target} t @param {{ arn: string, suffix?: string }[]} rules
 */
export async function putBucketNotification(t, rules) {
  const xml =
    '<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    rules
      .map(
        (r, i) =>
          `<QueueConfiguration><Id>bench-${i}</Id><Queue>${r.arn}</Queue><Event>s3:ObjectCreated:*</Event>` +
          (r.suffix === undefined
            ? ''
            : `<Filter><S3Key><FilterRule><Name>suffix</Name><Value>${r.suffix}</Value></FilterRule></S3Key></Filter>`) +
          '</QueueConfiguration>',
      )
      .join('') +
    '</NotificationConfiguration>';
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: 1, sign: t.sign });
  try {
    await client.request({ method: 'PUT', path: `/${BUCKET}?notification`, body: [Buffer.from(xml)] });
  } finally {
    client.close();
  }
}

/**
 * Polls the targets' status (every 100 ms, at most `timeoutMs`) until each has nothing queued and has delivered or
 * dead-lettered `expected[id]` messages. Resolves to the last status and the ms it took; `drained` false on timeout.
 * @param {Admin} admin @param {Record<string, number>} expected @param {number} timeoutMs
 */
export async function waitDrained(admin, expected, timeoutMs) {
  const started = Date.now();
  for (;;) {
    const items = await targetStatus(admin);
    const done = Object.entries(expected).every(([id, n]) => {
      const s = items.find((t) => t.id === id)?.status;
      return s !== undefined && s.queued === 0 && s.delivered + s.failed >= n;
    });
    const ms = Date.now() - started;
    if (done || ms > timeoutMs) return { items, ms, drained: done };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The store_notification_* lines of GET /metrics (METRICS_MODE=public). @param {string} baseUrl */
export async function notificationMetrics(baseUrl) {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text.slice(0, 200)}`);
  return text.split('\n').filter((l) => l.startsWith('store_notification_'));
}

/** One line per target: delivered/failed/queued and the last error class. @param {TargetInfo[]} items */
export const statusLine = (items) =>
  items
    .map((t) => {
      const s = t.status;
      return `${t.id} (${t.kind}): delivered ${s.delivered}, dead-lettered ${s.failed}, queued ${s.queued}, lastErrorClass ${s.lastErrorClass}`;
    })
    .join('; ');
