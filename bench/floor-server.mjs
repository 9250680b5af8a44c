// @ts-check
// The benchmark's "floor": the least a durable object server on node:http must do for the same workload
// (stream to a temp file, MD5 for the ETag, fsync, rename, fsync the directory). No auth, no metadata store.
// Env: PORT (required), DATA_DIR (required, absolute), HOST (default 127.0.0.1). Request headers are ignored.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const DATA_DIR = process.env.DATA_DIR ?? '';
const PORT = Number(process.env.PORT);
const HOST = process.env.HOST ?? '127.0.0.1';
/** Read buffer for GET: large enough that Node is not the limit, small enough to start sending at once. */
const READ_CHUNK = 256 * 1024;
/** Coalesce socket chunks into writes of this size so the disk sees few large writes, as any real server would. */
const WRITE_BATCH = 1024 * 1024;
const MULTIPART_SUFFIX = '.mpu';

if (!path.isAbsolute(DATA_DIR) || !Number.isInteger(PORT)) {
  console.error('floor-server: PORT and an absolute DATA_DIR are required');
  process.exit(2);
}

/** @param {string} bucket */
const bucketDir = (bucket) => path.join(DATA_DIR, bucket);
/** @param {string} bucket */
const objectsDir = (bucket) => path.join(DATA_DIR, bucket, 'objects');
/** @param {string} bucket */
const tmpPath = (bucket) => path.join(DATA_DIR, bucket, 'tmp', randomBytes(12).toString('hex'));
/** @param {string} bucket @param {string} key */
const objectPath = (bucket, key) => path.join(objectsDir(bucket), createHash('sha1').update(key).digest('hex'));

/** Durability of a rename needs the directory entry itself flushed, not only the file's data. */
async function fsyncDir(/** @type {string} */ dir) {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Streams a request body to `finalPath` crash-safely (tmp, fsync, rename, dir fsync) and returns its MD5 hex.
 * @param {http.IncomingMessage} req @param {string} tmp @param {string} finalPath
 */
async function writeDurably(req, tmp, finalPath) {
  const md5 = createHash('md5');
  const fh = await open(tmp, 'w');
  try {
    /** @type {Buffer[]} */ let batch = [];
    let batched = 0;
    const flush = async () => {
      const { bytesWritten } = await fh.writev(batch);
      if (bytesWritten !== batched) throw new Error(`short write ${bytesWritten}/${batched}`);
      batch = [];
      batched = 0;
    };
    for await (const chunk of req) {
      md5.update(chunk);
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    if (batched > 0) await flush();
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fh.close();
  await rename(tmp, finalPath);
  await fsyncDir(path.dirname(finalPath));
  return md5.digest('hex');
}

/**
 * @param {http.ServerResponse} res @param {number} status
 * @param {{ body: string, headers?: Record<string,string|number> }} reply
 */
function send(res, status, { body, headers = {} }) {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * Resolves a key to what is stored for it: a plain file, or a multipart manifest of part files.
 * @returns {Promise<{ size: number, etag: string, files: string[] } | undefined>}
 */
async function findObject(/** @type {string} */ bucket, /** @type {string} */ key) {
  const file = objectPath(bucket, key);
  try {
    const st = await stat(file);
    return { size: st.size, etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`, files: [file] };
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
  }
  try {
    const manifest = JSON.parse(await readFile(file + MULTIPART_SUFFIX, 'utf8'));
    return { size: manifest.size, etag: manifest.etag, files: manifest.parts };
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** @param {http.ServerResponse} res @param {string[]} files */
async function streamFiles(res, files) {
  for (const file of files) {
    const fh = await open(file, 'r');
    // The FileHandle stream closes the handle itself when it ends or fails.
    await pipeline(fh.createReadStream({ highWaterMark: READ_CHUNK }), res, { end: false });
  }
  res.end();
}

/** GET /bucket?list-type=2: readdir + sort + page; keys are the stored file names (hashes), not the keys. */
async function listObjects(
  /** @type {http.ServerResponse} */ res,
  /** @type {string} */ bucket,
  /** @type {URLSearchParams} */ q,
) {
  const maxKeys = Math.min(Number(q.get('max-keys') ?? 1000) || 1000, 1000);
  const after = q.get('continuation-token') ?? '';
  const names = (await readdir(objectsDir(bucket))).sort();
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (/** @type {string} */ (names[mid]) <= after) lo = mid + 1;
    else hi = mid;
  }
  const page = names.slice(lo, lo + maxKeys);
  const truncated = lo + maxKeys < names.length;
  const parts = [
    `<ListBucketResult><Name>${bucket}</Name><KeyCount>${page.length}</KeyCount>`,
    `<IsTruncated>${truncated}</IsTruncated>`,
  ];
  if (truncated) parts.push(`<NextContinuationToken>${page[page.length - 1]}</NextContinuationToken>`);
  for (const name of page) parts.push(`<Contents><Key>${name}</Key></Contents>`);
  parts.push('</ListBucketResult>');
  send(res, 200, { body: parts.join('') });
}

/** @param {http.IncomingMessage} req */
async function readBody(req) {
  /** @type {Buffer[]} */ const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
async function handle(req, res) {
  const url = req.url ?? '/';
  const qAt = url.indexOf('?');
  const rawPath = qAt < 0 ? url : url.slice(0, qAt);
  const q = new URLSearchParams(qAt < 0 ? '' : url.slice(qAt + 1));
  const method = req.method ?? 'GET';
  if (rawPath === '/api/admin/health')
    return send(res, 200, { body: '{"status":"ok"}', headers: { 'content-type': 'application/json' } });

  const slash = rawPath.indexOf('/', 1);
  const bucket = decodeURIComponent(slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash));
  const key = slash < 0 ? '' : decodeURIComponent(rawPath.slice(slash + 1));
  if (!bucket || bucket.includes('/') || bucket.startsWith('.'))
    return send(res, 400, { body: '<Error>InvalidBucketName</Error>' });

  if (!key) {
    if (method === 'PUT') {
      for (const sub of ['objects', 'tmp', 'uploads'])
        await mkdir(path.join(bucketDir(bucket), sub), { recursive: true });
      await fsyncDir(DATA_DIR);
      return send(res, 200, { body: '' });
    }
    if (method === 'GET' && q.get('list-type') === '2') return listObjects(res, bucket, q);
    return send(res, 405, { body: '<Error>MethodNotAllowed</Error>' });
  }

  const uploadId = q.get('uploadId');
  if (method === 'PUT' && uploadId !== null) {
    const partNumber = Number(q.get('partNumber'));
    if (!Number.isInteger(partNumber) || partNumber < 1 || !/^[0-9a-f]+$/.test(uploadId)) {
      return send(res, 400, { body: '<Error>InvalidArgument</Error>' });
    }
    const dest = path.join(bucketDir(bucket), 'uploads', uploadId, String(partNumber));
    const md5 = await writeDurably(req, tmpPath(bucket), dest);
    return send(res, 200, { body: '', headers: { etag: `"${md5}"` } });
  }
  if (method === 'PUT') {
    const md5 = await writeDurably(req, tmpPath(bucket), objectPath(bucket, key));
    return send(res, 200, { body: '', headers: { etag: `"${md5}"` } });
  }
  if (method === 'POST' && q.has('uploads')) {
    const id = randomBytes(16).toString('hex');
    const uploads = path.join(bucketDir(bucket), 'uploads');
    await mkdir(path.join(uploads, id));
    await fsyncDir(uploads);
    return send(res, 200, {
      body: `<InitiateMultipartUploadResult><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
    });
  }
  if (method === 'POST' && uploadId !== null) return completeUpload(req, res, { bucket, key, uploadId });
  if (method === 'GET' || method === 'HEAD') {
    const found = await findObject(bucket, key);
    if (!found) return send(res, 404, { body: method === 'HEAD' ? '' : '<Error>NoSuchKey</Error>' });
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': found.size, etag: found.etag });
    if (method === 'HEAD') return void res.end();
    return streamFiles(res, found.files);
  }
  return send(res, 405, { body: '<Error>MethodNotAllowed</Error>' });
}

/**
 * POST ?uploadId: writes a manifest naming the part files in the order the body lists them (no copy).
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res
 * @param {{ bucket: string, key: string, uploadId: string }} target
 */
async function completeUpload(req, res, { bucket, key, uploadId }) {
  const body = await readBody(req);
  const numbers = [...body.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => m[1]);
  const dir = path.join(bucketDir(bucket), 'uploads', uploadId);
  const parts = numbers.map((n) => path.join(dir, String(n)));
  let size = 0;
  for (const part of parts) size += (await stat(part)).size;
  const etag = `"${createHash('md5').update(body).digest('hex')}-${parts.length}"`;
  const manifest = JSON.stringify({ size, etag, parts });
  const finalPath = objectPath(bucket, key);
  const tmp = tmpPath(bucket);
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(manifest);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, finalPath + MULTIPART_SUFFIX);
  // A plain object of the same key would shadow the manifest on GET; the newest write must win.
  await unlink(finalPath).catch(() => {});
  await fsyncDir(objectsDir(bucket));
  send(res, 200, { body: `<CompleteMultipartUploadResult><ETag>${etag}</ETag></CompleteMultipartUploadResult>` });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((/** @type {NodeJS.ErrnoException} */ err) => {
    req.resume();
    if (res.headersSent) return void res.destroy(err);
    if (err.code === 'ENOENT') return send(res, 404, { body: '<Error>NoSuchBucket</Error>' });
    console.error('floor-server:', err);
    send(res, 500, { body: '<Error>InternalError</Error>' });
  });
});
server.keepAliveTimeout = 30_000;
server.listen(PORT, HOST);
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
