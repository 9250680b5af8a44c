// Real reverse proxies from Debian (nginx, Caddy) as child processes in front of Store, for the reverse-proxy tests.
// Each runs the site block of docs/operations.md (so the documented configuration is the tested one) with only its
// address, certificate and upstream substituted, on a throwaway self-signed certificate for 127.0.0.1, with every
// path it writes inside a temp directory; plus an HTTPS client and an SDK client that trust that certificate.

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { REPO_ROOT, restartServer, startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { useResource } from '../helpers/store.js';

export const NGINX = '/usr/sbin/nginx';
export const CADDY = '/usr/bin/caddy';
export type ProxyKind = 'nginx' | 'caddy';

/** The ```<lang> block that follows the `<!-- <kind>-site:` marker in docs/operations.md. Throws if the doc lost it. */
export function documentedSite(kind: ProxyKind): string {
  const doc = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
  const marker = `<!-- ${kind}-site:`;
  const at = doc.indexOf(marker);
  const lang = kind === 'nginx' ? 'nginx' : 'caddyfile';
  const block = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``).exec(doc.slice(at));
  if (at < 0 || !block) throw new Error(`docs/operations.md has no \`\`\`${lang} block after ${marker}`);
  return block[1] as string;
}

/**
 * Replaces `from` in `text`, which must occur exactly once (so a changed doc fails loudly instead of running something
 * else).
 */
function replaceOnce(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1)
    throw new Error(`the documented site has ${count} occurrences of ${JSON.stringify(from)}, expected 1`);
  return text.replace(from, to);
}

export interface Certificate {
  cert: string;
  key: string;
  pem: Buffer;
}

/** A self-signed P-256 certificate for IP 127.0.0.1, valid two days, written into `dir`. */
export function selfSignedCertificate(dir: string): Certificate {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key, pem: readFileSync(cert) };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ReverseProxy {
  kind: ProxyKind;
  /** `https://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  /** The configuration it runs. */
  config: string;
  stop(): Promise<void>;
}

interface ProxyOptions {
  dir: string;
  upstreamPort: number;
  certificate: Certificate;
}

/** nginx.conf around the documented site: pid, logs and temp paths in `dir`, the site inside `http {}`. */
function nginxConfig(
  opts: ProxyOptions,
  port: number,
): { file: string; argv: string[]; env: Record<string, string>; text: string } {
  let site = documentedSite('nginx');
  site = replaceOnce(site, 'server 127.0.0.1:9000;', `server 127.0.0.1:${opts.upstreamPort};`);
  site = replaceOnce(site, 'listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`);
  site = replaceOnce(site, '/etc/ssl/store/fullchain.pem', opts.certificate.cert);
  site = replaceOnce(site, '/etc/ssl/store/privkey.pem', opts.certificate.key);
  const d = opts.dir;
  const text = [
    // Workers run as root only because the test runs as root and its temp directory is private to root.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    `pid ${join(d, 'nginx.pid')};`,
    `error_log ${join(d, 'error.log')} info;`,
    'events { worker_connections 512; }',
    'http {',
    `  access_log ${join(d, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(d, `${t}_temp`)};`),
    site
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
    '}',
    '',
  ].join('\n');
  const file = join(d, 'nginx.conf');
  return { file, text, env: {}, argv: [NGINX, '-p', d, '-e', join(d, 'error.log'), '-c', file, '-g', 'daemon off;'] };
}

/** A Caddyfile around the documented site: no admin endpoint, no ACME, no redirect listener, state in `dir`. */
function caddyConfig(
  opts: ProxyOptions,
  port: number,
): { file: string; argv: string[]; env: Record<string, string>; text: string } {
  let site = documentedSite('caddy');
  site = replaceOnce(
    site,
    's3.example.com {',
    `https://127.0.0.1:${port} {\n\ttls ${opts.certificate.cert} ${opts.certificate.key}`,
  );
  site = replaceOnce(site, 'reverse_proxy 127.0.0.1:9000 {', `reverse_proxy 127.0.0.1:${opts.upstreamPort} {`);
  const text = [
    '{',
    '\tadmin off',
    '\tauto_https disable_redirects',
    '\tskip_install_trust',
    `\tstorage file_system ${join(opts.dir, 'data')}`,
    '}',
    site,
    '',
  ].join('\n');
  const file = join(opts.dir, 'Caddyfile');
  const env = { HOME: opts.dir, XDG_DATA_HOME: join(opts.dir, 'data'), XDG_CONFIG_HOME: join(opts.dir, 'config') };
  return { file, text, env, argv: [CADDY, 'run', '--config', file, '--adapter', 'caddyfile'] };
}

/**
 * Starts the proxy in the foreground with the documented site, listening on a free 127.0.0.1 port with the
 * certificate and proxying to Store on `upstreamPort`. Throws with its output if it does not come up.
 */
export async function startProxy(kind: ProxyKind, opts: ProxyOptions): Promise<ReverseProxy> {
  const port = await freePort();
  const cfg = kind === 'nginx' ? nginxConfig(opts, port) : caddyConfig(opts, port);
  writeFileSync(cfg.file, cfg.text);
  const [bin, ...args] = cfg.argv as [string, ...string[]];
  const child = spawn(bin, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', ...cfg.env },
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => {
    output += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    output += b.toString();
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const errorLog = (): string => {
    try {
      return readFileSync(join(opts.dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };

  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${kind} did not start (exit ${child.exitCode}):\n${output}\n${errorLog()}\n--- config\n${cfg.text}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    kind,
    origin: `https://127.0.0.1:${port}`,
    port,
    config: cfg.text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(kind === 'nginx' ? 'SIGQUIT' : 'SIGTERM'); // graceful: finish what is in flight
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface HttpsResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * One HTTPS request that trusts `ca`, optionally from a chosen loopback source address (so a test can tell the
 * client's address from the proxy's). A plain client: no signing, no retries.
 */
export function httpsRequest(
  url: string,
  opts: {
    ca: Buffer;
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    localAddress?: string;
  },
): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ca: opts.ca,
        localAddress: opts.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** An SDK client for Store at `endpoint` (the proxy's URL under the mount), trusting `ca`. */
export function s3ClientVia(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  ca: Buffer,
): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    requestHandler: { httpsAgent: new Agent({ ca }) },
  });
}

export interface ProxiedStore {
  store: RunningServer;
  proxy: ReverseProxy;
  certificate: Certificate;
  /** A temp directory for the test's own files (removed by `stop`). */
  work: string;
  /** Stops the proxy and Store, restarts Store on the same data with `env` added, and the proxy in front of it. */
  restart(env: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/** Store with MOUNT_PATH=`mount` and `env`, behind `proxy` (default nginx) running the documented site. */
export async function startProxiedStore(opts: {
  mount: string;
  env?: Record<string, string>;
  proxy?: ProxyKind;
}): Promise<ProxiedStore> {
  const kind = opts.proxy ?? 'nginx';
  const work = tempDir(`store-e2e-${kind}-`);
  const proxyDir = join(work, kind);
  mkdirSync(proxyDir);
  const certificate = selfSignedCertificate(work);
  const store = await startServer({ dataDir: join(work, 'data'), env: { MOUNT_PATH: opts.mount, ...opts.env } });
  const proxy = await startProxy(kind, { dir: proxyDir, upstreamPort: store.port, certificate });
  const running: ProxiedStore = {
    store,
    proxy,
    certificate,
    work,
    async restart(env) {
      await running.proxy.stop();
      await running.store.stop();
      running.store = await restartServer(running.store, env);
      running.proxy = await startProxy(kind, { dir: proxyDir, upstreamPort: running.store.port, certificate });
    },
    async stop() {
      await running.proxy.stop();
      await running.store.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return running;
}

/**
 * A proxied Store (see startProxiedStore) for the tests of the enclosing file or describe block: started in beforeAll.
 */
export function useProxiedStore(opts: {
  mount: string;
  env?: Record<string, string>;
  proxy?: ProxyKind;
}): Omit<ProxiedStore, 'stop'> {
  const get = useResource(
    'the proxied store',
    () => startProxiedStore(opts),
    (running) => running.stop(),
  );
  return {
    get store() {
      return get().store;
    },
    get proxy() {
      return get().proxy;
    },
    get certificate() {
      return get().certificate;
    },
    get work() {
      return get().work;
    },
    restart: (env) => get().restart(env),
  };
}
