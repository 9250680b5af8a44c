// The S3 data plane: resolve the operation, answer CORS, authenticate, authorize, run its handler, and send the
// response
// or the error. Framework-free: a plain (req, res) function behind the dispatcher, which writes the access-log line
// and records the request's metrics with the operation reported through `onOp`.

import type { RequestOrigin, RequestOrigins } from '../../lib/request-origin.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { AppError, isAppError, noSuchBucket } from '../../core/errors.js';
import type { Logger } from '../../observability/logger.js';
import type { BucketRow } from '../../services/bucket-service.js';
import { parseAmzDate, type RegionRule } from '../../sigv4/auth-params.js';
import type { AuthScheme, SecretLookup, VerifiedRequest } from '../../sigv4/types.js';
import { isClientAbort } from '../shared/client-abort.js';
import { clientIp, isSecureTransport, NO_TRUSTED_PROXIES, type TrustedProxies } from '../shared/client-address.js';
import { anonymousRequest, authenticate } from './authenticate.js';
import {
  ANONYMOUS,
  BucketPolicyCache,
  hideMissingKey,
  operationChecks,
  RequestAuthorizer,
  type Principal,
} from './authorize.js';
import { headerOf, type Owner, type S3Context, type S3Response, type S3Services } from './context.js';
import { parseCopySource } from './copy-source.js';
import { actualCorsHeaders, preflightResponse } from './cors.js';
import { parseQuery, resolveEndpoint, resolveResource, type Endpoint } from './endpoints.js';
import { HANDLERS } from './handlers/index.js';
import { postObject } from './handlers/post-object.js';
import { policyContext, tagsFromHeader, type ContextFacts } from './policy-context.js';
import { sendResponse, sendS3Error } from './respond.js';

export interface S3PlaneOptions {
  services: S3Services;
  /** Where the request's origin is kept for bucket notifications (docs/notifications.md "Event message"). */
  origins?: RequestOrigins;
  logger: Logger;
  region: string;
  /** Whether signatures must name `region` (STORE_REGION_STRICT); otherwise any signing region is accepted. */
  regionStrict: boolean;
  /** STORE_SIGV2=on: Signature Version 2 is verified (header, query, POST forms); off: refused. */
  sigv2: boolean;
  /** Told how each authenticated or anonymous request was signed (store_s3_auth_total{scheme}). */
  onAuth?: (scheme: AuthScheme) => void;
  owner: Owner;
  lookup: SecretLookup;
  now?: () => Date;
  /**
   * Who a verified access key is: the root key, or a scoped key with its identity policy (docs/access-keys.md).
   * Default: every key that verifies is the root key, which today is the only key `lookup` knows.
   */
  keyPrincipal?: (accessKeyId: string) => Principal;
  /**
   * Resolves when every metadata commit made so far is on disk. Awaited before any answer to a request that may
   * have written (PUT, POST, DELETE), errors included: "a 200 means durable".
   */
  durable: () => Promise<void>;
  /** STORE_TRUSTED_PROXIES: whose X-Forwarded-For / X-Forwarded-Proto count for aws:SourceIp / aws:SecureTransport. */
  trustedProxies?: TrustedProxies;
  /** Told of each request answered 500 InternalError (store_internal_errors_total{surface="s3"}). */
  onInternalError?: () => void;
}

/** Methods that may commit: their answers wait for the durability barrier. GET/HEAD/OPTIONS never wait. */
function mayWrite(req: IncomingMessage): boolean {
  return req.method === 'PUT' || req.method === 'POST' || req.method === 'DELETE';
}

interface RequestInfo {
  requestId: string;
  mountPath: string;
  /** Called once the operation is known: the route class of the request's log line, metrics and span. */
  onOp: (op: string) => void;
  /** The bucket the Host names (virtual-hosted style, STORE_DOMAIN); undefined: path-style. */
  hostBucket?: string;
  /** The client sent `Expect: 100-continue` and waits for `100 Continue` before the body. */
  expectsContinue?: boolean;
}

export class S3PlaneHandler {
  private readonly policies = new BucketPolicyCache();
  private readonly now: () => Date;
  private readonly signingRegion: RegionRule;
  private readonly principalOf: (accessKeyId: string) => Principal;

  constructor(private readonly opts: S3PlaneOptions) {
    this.now = opts.now ?? (() => new Date());
    this.signingRegion = { name: opts.region, strict: opts.regionStrict };
    this.principalOf = opts.keyPrincipal ?? ((accessKeyId) => ({ type: 'key', accessKeyId, isRoot: true }));
  }

  handle(req: IncomingMessage, res: ServerResponse, ctx: RequestInfo): void {
    let op = 'Unknown';
    const onOp = (resolved: string): void => {
      op = resolved;
      ctx.onOp(resolved);
    };
    this.run({ req, res }, ctx, onOp)
      .catch((err: unknown) => this.fail(req, res, { requestId: ctx.requestId, op, err }))
      .catch((err: unknown) => {
        // The error path itself failed: the request cannot be answered, but the process must go on.
        this.opts.logger.error({ err, reqId: ctx.requestId, op }, 'S3 error response failed');
        this.opts.onInternalError?.();
        res.destroy();
      });
  }

  /**
   * Answers a failed request: nothing for a client that went away; after the durability barrier for a request that
   * may have written (a DeleteObjects halfway is answered only once its commits are durable); then the S3 error. An
   * unexpected failure is a 500 InternalError, logged once with its stack and counted.
   */
  private async fail(
    req: IncomingMessage,
    res: ServerResponse,
    failed: { requestId: string; op: string; err: unknown },
  ): Promise<void> {
    const { requestId, op, err } = failed;
    if (isClientAbort(req, err)) {
      // The client went away mid-request: nothing to answer, and not a server error.
      res.destroy();
      return;
    }
    const failure = mayWrite(req)
      ? await this.opts.durable().then(
          () => err,
          (syncErr: unknown) => syncErr,
        )
      : err;
    const appError = sendS3Error({ req, res }, failure, requestId);
    if (appError.code === 'InternalError') {
      this.opts.logger.error({ err: failure, reqId: requestId, op }, 'S3 request failed');
      this.opts.onInternalError?.();
    } else if (appError.cause !== undefined && appError.code === 'InsufficientStorage') {
      // A full volume refuses every write until an operator frees space: say so loudly, once per refused request.
      this.opts.logger.warn({ err: failure, reqId: requestId, op }, 'S3 write refused: the data volume is full');
    }
  }

  private async run(
    { req, res }: { req: IncomingMessage; res: ServerResponse },
    info: RequestInfo,
    onOp: (op: string) => void,
  ): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = (q < 0 ? url : url.slice(0, q)).slice(info.mountPath.length) || '/';
    const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
    const bucketRow = memoBuckets(this.opts.services);
    // Asks for the body of an `Expect: 100-continue` request, once it has passed every check that needs no body: an
    // answer before this point (a bad signature, AccessDenied, NoSuchBucket) reaches the client before it sends a byte.
    const readyForBody = (): void => {
      if (info.expectsContinue === true && !res.headersSent) res.writeContinue();
    };
    if (req.method === 'OPTIONS') {
      // Preflights carry no credentials: answered from the CORS rules alone, before authentication.
      onOp('PreflightRequest');
      const { bucket, key } = resolveResource(rawPath, info.hostBucket);
      const cors = bucket === '' ? undefined : bucketRow(bucket)?.config.cors;
      await this.reply(req, res, preflightResponse(req, cors, key === '' ? 'BUCKET' : 'OBJECT'));
      return;
    }
    const endpoint: Endpoint = resolveEndpoint(
      { method: req.method ?? 'GET', path: rawPath, query },
      {
        hasCopySource: req.headers['x-amz-copy-source'] !== undefined,
        hostBucket: info.hostBucket,
      },
    );
    onOp(endpoint.op);
    const bucket = 'bucket' in endpoint ? endpoint.bucket : undefined;
    // Set before anything can fail, so that error responses carry the CORS headers too, as S3's do.
    if (bucket !== undefined) setHeaders(res, actualCorsHeaders(req, bucketRow(bucket)?.config.cors));
    const policies = (name: string) => this.policies.view(name, bucketRow(name));
    const context = (auth: VerifiedRequest, authz: RequestAuthorizer): S3Context => ({
      req,
      endpoint,
      query,
      requestId: info.requestId,
      auth,
      authz,
      services: this.opts.services,
      owner: this.opts.owner,
      region: this.opts.region,
      hostBucket: info.hostBucket,
    });

    if (endpoint.op === 'PostObject') {
      // The form names who signs it: postObject authorizes through authorizerFor once it has read the form.
      const anonymous = this.authorizer({ req, policies }, ANONYMOUS, {
        op: endpoint.op,
        query,
        authType: undefined,
        header: (name) => headerOf(req, name),
      });
      // A form carries its signature in the body: nothing more can be checked before reading it.
      readyForBody();
      const origin = (): RequestOrigin => ({
        operation: 'PostObject',
        requestId: info.requestId,
        principalId: 'anonymous',
        sourceIp: clientIp(req, this.opts.trustedProxies ?? NO_TRUSTED_PROXIES) ?? '',
      });
      const post = () =>
        postObject(context(anonymousRequest(req), anonymous) as S3Context<typeof endpoint>, {
          lookup: this.opts.lookup,
          region: this.signingRegion,
          sigv2: this.opts.sigv2,
          onAuth: this.opts.onAuth,
          now: this.now,
          principalOf: this.principalOf,
          authorizerFor: (principal, facts) =>
            this.authorizer({ req, policies }, principal, { op: endpoint.op, query, ...facts }),
          objectUrl: (b, k) =>
            objectUrl(req, { mountPath: info.mountPath, hostBucket: info.hostBucket, bucket: b, key: k }),
        });
      const response = this.opts.origins ? await this.opts.origins.run(origin, post) : await post();
      await this.reply(req, res, response);
      return;
    }

    const verified = authenticate(req, {
      region: this.signingRegion,
      sigv2: this.opts.sigv2,
      lookup: this.opts.lookup,
      now: this.now,
      hostBucket: info.hostBucket,
    });
    this.opts.onAuth?.(verified?.scheme ?? 'anonymous');
    const principal = verified ? this.principalOf(verified.accessKeyId) : ANONYMOUS;
    const header = (name: string): string | undefined => headerOf(req, name);
    const authz = this.authorizer({ req, policies }, principal, {
      op: endpoint.op,
      query,
      authType: verified === undefined ? undefined : verified.via === 'header' ? 'REST-HEADER' : 'REST-QUERY-STRING',
      signatureVersion: verified?.scheme === 'sigv2' ? 'AWS' : 'AWS4-HMAC-SHA256',
      signedAt: verified === undefined ? undefined : parseAmzDate(verified.chunkContext.amzDate),
      header,
      requestTags: tagsFromHeader(header('x-amz-tagging')),
    });
    if (endpoint.op === 'NotImplemented') {
      if (principal.type === 'anonymous') throw new AppError('AccessDenied');
      throw new AppError('NotImplemented', { message: `Store does not implement ${endpoint.feature} yet.` });
    }
    if (bucket !== undefined) authz.requireVisible(bucket);
    const key = 'key' in endpoint ? endpoint.key : undefined;
    const isCopy = endpoint.op === 'CopyObject' || endpoint.op === 'UploadPartCopy';
    authz.require(
      operationChecks({
        op: endpoint.op,
        bucket,
        key,
        versionId: query.get('versionId'),
        header,
        copySource: isCopy ? parseCopySource(req) : undefined,
      }),
    );
    const handler = HANDLERS[endpoint.op] as (c: S3Context) => Promise<S3Response>;
    let response: S3Response;
    // A body for a bucket that does not exist is not worth receiving: the handler would answer NoSuchBucket after it.
    if (
      info.expectsContinue === true &&
      bucket !== undefined &&
      endpoint.op !== 'CreateBucket' &&
      bucketRow(bucket) === undefined
    ) {
      throw noSuchBucket(bucket);
    }
    readyForBody();
    try {
      const run = () => handler(context(verified ?? anonymousRequest(req), authz));
      const origin = (): RequestOrigin => ({
        operation: endpoint.op,
        requestId: info.requestId,
        principalId: principal.type === 'key' ? principal.accessKeyId : 'anonymous',
        sourceIp: clientIp(req, this.opts.trustedProxies ?? NO_TRUSTED_PROXIES) ?? '',
      });
      response = this.opts.origins ? await this.opts.origins.run(origin, run) : await run();
    } catch (err) {
      throw hideMissingKey(err, { op: endpoint.op, bucket }, authz);
    }
    await this.reply(req, res, response);
  }

  /** Sends a response, after the durability barrier when the request may have written. */
  private async reply(req: IncomingMessage, res: ServerResponse, response: S3Response): Promise<void> {
    if (mayWrite(req)) await this.opts.durable();
    await sendResponse(req, res, response);
  }

  private authorizer(
    { req, policies }: { req: IncomingMessage; policies: (bucket: string) => ReturnType<BucketPolicyCache['view']> },
    principal: Principal,
    facts: Omit<ContextFacts, 'principal' | 'sourceIp' | 'secureTransport' | 'now' | 'region'>,
  ): RequestAuthorizer {
    const objects = this.opts.services.objects;
    return new RequestAuthorizer({
      principal,
      policies,
      context: () =>
        policyContext({
          ...facts,
          principal,
          sourceIp: clientIp(req, this.opts.trustedProxies ?? NO_TRUSTED_PROXIES),
          secureTransport: isSecureTransport(req, this.opts.trustedProxies ?? NO_TRUSTED_PROXIES),
          now: this.now(),
          region: this.opts.region,
        }),
      objectAcl: (bucket, key, versionId) => {
        try {
          return objects.acl.get({ bucket, key, versionId }).acl;
        } catch (err) {
          if (isAppError(err)) return undefined;
          throw err;
        }
      },
      objectTags: (bucket, key, versionId) => {
        try {
          return objects.open(bucket, key, { versionId }).row.tags;
        } catch (err) {
          if (isAppError(err)) return undefined;
          throw err;
        }
      },
    });
  }
}

/** Bucket rows looked up at most once per request (CORS, authorization and copy sources share them). */
function memoBuckets(services: S3Services): (name: string) => BucketRow | undefined {
  const seen = new Map<string, BucketRow | undefined>();
  return (name) => {
    if (!seen.has(name)) {
      try {
        seen.set(name, services.buckets.get(name));
      } catch (err) {
        if (!isAppError(err) || err.code !== 'NoSuchBucket') throw err;
        seen.set(name, undefined);
      }
    }
    return seen.get(name);
  };
}

function setHeaders(res: ServerResponse, headers: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
}

function isTls(req: IncomingMessage): boolean {
  return (req.socket as Partial<TLSSocket>).encrypted === true;
}

/**
 * The object's URL as the client addressed this server, mount path included: `host/bucket/key` path-style, or
 * `bucket.domain/key` when the Host named the bucket.
 */
function objectUrl(
  req: IncomingMessage,
  at: { mountPath: string; hostBucket: string | undefined; bucket: string; key: string },
): string {
  const path = at.key.split('/').map(encodeURIComponent).join('/');
  const origin = `${isTls(req) ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${at.mountPath}`;
  return at.hostBucket === undefined ? `${origin}/${encodeURIComponent(at.bucket)}/${path}` : `${origin}/${path}`;
}
