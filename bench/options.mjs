// @ts-check
// The command line of `npm run bench` (bench/README.md, "Flags"), checked and given defaults.

import os from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_STORE_CMD } from './servers.mjs';

/** @typedef {ReturnType<typeof parseOptions>} Options */

export function parseOptions() {
  const { values } = parseArgs({
    // `--notify-outage` alone means 60 s per phase.
    args: process.argv.slice(2).map((a) => (a === '--notify-outage' ? '--notify-outage=60' : a)),
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', default: '' },
      'store-cmd': { type: 'string', default: process.env.BENCH_STORE_CMD ?? DEFAULT_STORE_CMD },
      signer: { type: 'string', default: 'auto' },
      'tmp-dir': { type: 'string', default: os.tmpdir() },
      rounds: { type: 'string', default: '2' },
      'with-s3rver': { type: 'boolean' },
      'without-s3rver': { type: 'boolean', default: false },
      objects: { type: 'string', default: '' },
      soak: { type: 'string', default: '' },
      webhooks: { type: 'boolean', default: false },
      'webhooks-ab': { type: 'boolean', default: false },
      'webhook-cost': { type: 'string', default: '' },
      puts: { type: 'string', default: '8000' },
      rate: { type: 'string', default: '1300' },
      'read-cost': { type: 'string', default: '' },
      ops: { type: 'string', default: '30000' },
      'read-size': { type: 'string', default: '4096' },
      'upload-cost': { type: 'string', default: '' },
      uploads: { type: 'string', default: '4' },
      'download-cost': { type: 'string', default: '' },
      downloads: { type: 'string', default: '24' },
      'notify-ab': { type: 'boolean', default: false },
      'notify-cost': { type: 'string', default: '' },
      'notify-outage': { type: 'string' },
    },
  });
  const soak = values.soak ? Number(values.soak) : 0;
  if (!Number.isInteger(soak) || soak < 0)
    throw new Error(`--soak must be a whole number of seconds, got ${values.soak}`);
  const objects = values.objects ? Number(values.objects) : 0;
  if (!Number.isInteger(objects) || objects < 0)
    throw new Error(`--objects must be a positive integer, got ${values.objects}`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  if (!['auto', 'real', 'stub'].includes(String(values.signer))) throw new Error(`--signer must be auto, real or stub`);
  const webhookCost = String(values['webhook-cost']);
  if (!['', 'on', 'off', 'external'].includes(webhookCost))
    throw new Error(`--webhook-cost must be on, off or external, got ${webhookCost}`);
  const puts = Number(values.puts);
  if (!Number.isInteger(puts) || puts < 1) throw new Error(`--puts must be a positive integer, got ${values.puts}`);
  const rate = Number(values.rate);
  if (!Number.isInteger(rate) || rate < 1) throw new Error(`--rate must be a positive integer, got ${values.rate}`);
  const readCost = String(values['read-cost']);
  if (!['', 'HEAD', 'GET', 'PUT'].includes(readCost))
    throw new Error(`--read-cost must be HEAD, GET or PUT, got ${readCost}`);
  const ops = Number(values.ops);
  if (!Number.isInteger(ops) || ops < 1) throw new Error(`--ops must be a positive integer, got ${values.ops}`);
  const readSize = Number(values['read-size']);
  if (!Number.isInteger(readSize) || readSize < 1 || readSize > 16 * 1024 * 1024) {
    throw new Error(`--read-size must be 1 to 16777216 bytes, got ${values['read-size']}`);
  }
  const uploadCost = String(values['upload-cost']);
  if (!['', 'put', 'multipart'].includes(uploadCost))
    throw new Error(`--upload-cost must be put or multipart, got ${uploadCost}`);
  const uploads = Number(values.uploads);
  if (!Number.isInteger(uploads) || uploads < 1)
    throw new Error(`--uploads must be a positive integer, got ${values.uploads}`);
  const downloadCost = values['download-cost'] ? Number(values['download-cost']) : 0;
  if (!Number.isInteger(downloadCost) || downloadCost < 0 || downloadCost > 16) {
    throw new Error(`--download-cost must be a concurrency from 1 to 16, got ${values['download-cost']}`);
  }
  const downloads = Number(values.downloads);
  if (!Number.isInteger(downloads) || downloads < 1)
    throw new Error(`--downloads must be a positive integer, got ${values.downloads}`);
  const notifyCost = String(values['notify-cost']);
  if (!['', 'webhook', 'redis', 'nats', 'amqp', 'mqtt', 'postgres', 'off', 'all'].includes(notifyCost)) {
    throw new Error(`--notify-cost must be webhook, redis, nats, amqp, mqtt, postgres, off or all, got ${notifyCost}`);
  }
  const notifyOutage = values['notify-outage'] === undefined ? 0 : Number(values['notify-outage']);
  if (!Number.isInteger(notifyOutage) || notifyOutage < 0 || notifyOutage > 3600 || values['notify-outage'] === '')
    throw new Error(`--notify-outage must be 1 to 3600 seconds per phase, got ${values['notify-outage']}`);
  return {
    quick: Boolean(values.quick),
    // s3rver takes part in a full run, not in a --quick one, unless a flag says otherwise.
    withS3rver: values['without-s3rver'] ? false : (values['with-s3rver'] ?? !values.quick),
    objects,
    soak,
    only: String(values.only).split(',').filter(Boolean),
    storeCmd: String(values['store-cmd']),
    signer: String(values.signer),
    tmpDir: String(values['tmp-dir']),
    rounds,
    webhooks: Boolean(values.webhooks) || Boolean(values['webhooks-ab']),
    webhooksAb: Boolean(values['webhooks-ab']),
    webhookCost,
    puts,
    rate,
    readCost,
    ops,
    readSize,
    uploadCost,
    uploads,
    downloadCost,
    downloads,
    notifyAb: Boolean(values['notify-ab']),
    notifyCost,
    notifyOutage,
  };
}
