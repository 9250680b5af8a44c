// @ts-check
// The benchmark's HTTP client: node:http over a keep-alive Agent (one socket per concurrent worker), every
// request SigV4-signed with UNSIGNED-PAYLOAD (the floor gets the same headers and ignores them), plus latency stats.
import { createHmac } from 'node:crypto';
import http from 'node:http';

/**
 * @typedef {(opts: { method: string, url: URL, headers?: Record<string,string>, accessKeyId: string,
 * secretAccessKey: string, region: 'us-east-1', payloadHash?: 'UNSIGNED-PAYLOAD' }) => Record<string,string>}
 * SignRequest
 * @typedef {(method: string, url: URL, headers: Record<string,string>) => Record<string,string>} Signer
 * @typedef {{ update(chunk: Buffer): void, end(): void }} BodySink  receives a response body chunk by chunk
 * @typedef {{ status: number, headers: http.IncomingHttpHeaders, bytes: number, body: Buffer | undefined }} Reply
 */

/**
 * Loads the project's signer from dist/ (built by `npm run build`); undefined when it has not been built yet.
 * @returns {Promise<SignRequest | undefined>}
 */
export async function loadSignRequest() {
  try {
    // A URL, not a literal path, so type-checking bench does not require dist/ to exist yet.
    const mod = await import(new URL('../dist/sigv4/sign.js', import.meta.url).href);
    if (typeof mod.signRequest !== 'function') throw new Error('dist/sigv4/sign.js does not export signRequest');
    return /** @type {SignRequest} */ (mod.signRequest);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * Stand-in for the real signer, only for exercising the harness against two floors: it produces the same
 * header set at a similar CPU cost (a few HMACs) but the signature is not valid SigV4.
 * @type {SignRequest}
 */
export function stubSignRequest({ method, url, headers = {}, accessKeyId, secretAccessKey, region }) {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  let key = createHmac('sha256', `AWS4${secretAccessKey}`).update(amzDate.slice(0, 8)).digest();
  for (const part of [region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const signature = createHmac('sha256', key)
    .update(`${method}\n${url.pathname}\n${url.search}\n${amzDate}`)
    .digest('hex');
  return {
    ...headers,
    host: url.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signature}`,
  };
}

/**
 * Binds a SignRequest to one set of credentials.
 * @param {{ signRequest: SignRequest, accessKeyId: string, secretAccessKey: string }} opts
 * @returns {Signer}
 */
export function createSigner({ signRequest, accessKeyId, secretAccessKey }) {
  return (method, url, headers) =>
    signRequest({
      method,
      url,
      headers,
      accessKeyId,
      secretAccessKey,
      region: 'us-east-1',
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
}

/** A keep-alive HTTP client for one scenario against one server. Call close() when the scenario ends. */
export class BenchClient {
  /** @param {{ baseUrl: string, concurrency: number, sign: Signer }} opts */
  constructor({ baseUrl, concurrency, sign }) {
    this.baseUrl = baseUrl;
    this.sign = sign;
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets: concurrency,
      maxFreeSockets: concurrency,
      noDelay: true,
    });
  }

  /**
   * Sends one request. Throws on a network error or, unless `expectStatus` says otherwise, on a non-2xx status.
   * Without `sink`, the response body is buffered when `keepBody` is set and otherwise only counted.
   * @param {{ method: string, path: string, body?: Buffer[], headers?: Record<string,string>,
   *   sink?: BodySink, keepBody?: boolean, expectStatus?: number }} req
   * @returns {Promise<Reply>}
   */
  request({ method, path, body = [], headers = {}, sink, keepBody = false, expectStatus }) {
    const url = new URL(path, this.baseUrl);
    const length = body.reduce((n, b) => n + b.length, 0);
    const toSign = { ...headers };
    if (length > 0 || method === 'PUT' || method === 'POST') toSign['content-length'] = String(length);
    const signed = this.sign(method, url, toSign);
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method, headers: signed, agent: this.agent }, (res) => {
        /** @type {Buffer[]} */ const chunks = [];
        let bytes = 0;
        const status = res.statusCode ?? 0;
        const ok = expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus;
        res.on('data', (/** @type {Buffer} */ chunk) => {
          bytes += chunk.length;
          if (!ok || keepBody) return void chunks.push(chunk);
          try {
            sink?.update(chunk);
          } catch (err) {
            // A verification failure ends the request here; throwing from an event handler would crash the run.
            reject(err);
            res.destroy();
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks);
          if (!ok)
            return reject(
              new Error(`${method} ${url.pathname}${url.search} -> ${status}: ${text.toString('utf8', 0, 500)}`),
            );
          try {
            sink?.end();
          } catch (err) {
            return reject(err);
          }
          resolve({ status, headers: res.headers, bytes, body: keepBody ? text : undefined });
        });
      });
      req.on('error', reject);
      for (let i = 0; i < body.length - 1; i++) req.write(body[i]);
      req.end(body[body.length - 1]);
    });
  }

  close() {
    this.agent.destroy();
  }
}

/**
 * Summarises latencies in milliseconds: p50, p99 and mean (nearest-rank percentiles).
 * @param {number[]} latenciesMs
 */
export function summarizeLatencies(latenciesMs) {
  if (latenciesMs.length === 0) return { p50: NaN, p99: NaN, mean: NaN };
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (/** @type {number} */ p) =>
    /** @type {number} */ (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50: at(0.5), p99: at(0.99), mean };
}
