// Zip downloads (docs/admin-api.md, "Zip downloads"): POST /buckets/:name/objects/zip checks a selection of objects
// and folders and answers a one-time link (download-tickets.ts); GET /downloads/:ticket streams the .zip, built
// while it is sent (services/backup/zip-download.ts). Read-only admins may download: they can read every object.

import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { validateObjectKey } from '../../../core/names.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import { ZIP_LIMITS, type ZipDownloads, type ZipSelection } from '../../../services/backup/zip-download.js';
import { principalOf } from '../admin-principal.js';
import { DownloadTickets } from '../download-tickets.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, Strict } from './bucket-schemas.js';
import { Binary } from './object-schemas.js';
import { ErrorBody } from './schemas.js';

export interface ZipRouteDeps {
  zips: Pick<ZipDownloads, 'plan' | 'open'>;
  audit: AuditSink;
  /** MOUNT_PATH: the link is an absolute path under it. */
  mountPath: string;
  /** The tickets' clock (tests); Date.now otherwise. */
  now?: () => number;
}

const tags = ['object content'];
const ZipBody = Strict({
  items: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      minItems: 1,
      maxItems: ZIP_LIMITS.items,
      description: 'Object keys, and folders ending in "/" (taken whole). Absent: the whole base folder (or bucket)',
    }),
  ),
  base: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'The folder the selection was made in ("" or ending in "/"): entry names are relative to it',
    }),
  ),
});
const ZipLink = Type.Object(
  {
    url: Type.String({ description: 'An absolute path (under MOUNT_PATH) to GET once, without credentials' }),
    expiresAt: Type.String({ format: 'date-time' }),
    objects: Type.Integer({ minimum: 0, description: 'Objects the archive will hold, as of now' }),
    bytes: Type.Integer({ minimum: 0, description: 'Their bytes (the archive adds about 100 bytes per entry)' }),
  },
  { additionalProperties: false },
);
const TicketParams = Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 64 }) });

/** The download's file name: the folder's name, or the bucket's, in a quoted-string and in RFC 5987 form. */
function contentDisposition(selection: ZipSelection): string {
  const folder = selection.base.split('/').filter(Boolean).pop();
  const name = `${folder ?? selection.bucket}.zip`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function objectZipRoutes(app: AdminApp, deps: ZipRouteDeps): void {
  const tickets = new DownloadTickets<ZipSelection>({ now: deps.now });

  app.post(
    '/buckets/:name/objects/zip',
    {
      config: { readsOnly: true },
      schema: {
        operationId: 'createZipDownload',
        tags,
        summary: 'A one-time link to download objects and folders as one .zip',
        description:
          `Checks the selection now (at most ${ZIP_LIMITS.items} items and ${ZIP_LIMITS.objects} objects; ` +
          'NoSuchKey for a selected key with no current version) and answers a link valid for 60 seconds and one ' +
          'use. The archive holds the current version of each key, decrypted, stored (not deflated).',
        params: BucketNameParams,
        body: ZipBody,
        response: { 200: ZipLink, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const selection: ZipSelection = { bucket: req.params.name, base: req.body.base ?? '', items: req.body.items };
      for (const item of selection.items ?? []) validateObjectKey(item);
      const planned = deps.zips.plan(selection);
      const { ticket, expiresAt } = tickets.issue(selection);
      deps.audit.record({
        event: 'object.zip_downloaded',
        subject: principalOf(req).username,
        bucket: selection.bucket,
        details: { base: selection.base, items: selection.items?.length ?? 0, ...planned },
      });
      return {
        url: `${deps.mountPath}/api/admin/downloads/${ticket}`,
        expiresAt: new Date(expiresAt).toISOString(),
        ...planned,
      };
    },
  );

  app.get(
    '/downloads/:ticket',
    {
      config: { ticket: true },
      schema: {
        operationId: 'downloadZip',
        tags,
        summary: 'The .zip a link from createZipDownload names (no Bearer token: the link is the credential)',
        description: 'The link is the credential, and works once: 401 when it is unknown, spent or expired.',
        params: TicketParams,
        response: {
          200: {
            description: 'The .zip, streamed as it is built',
            content: { 'application/zip': { schema: Binary } },
          },
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      // HEAD (Fastify's automatic twin) must not spend the ticket, and says nothing about it.
      if (req.method === 'HEAD') return reply.type('application/zip').send(Readable.from([]));
      const selection = tickets.take(req.params.ticket);
      if (selection === undefined) {
        throw new AppError('Unauthorized', {
          message: 'This download link is unknown, used or expired: ask for a new one.',
        });
      }
      const download = deps.zips.open(selection);
      void reply.headers({
        'content-type': 'application/zip',
        'content-disposition': contentDisposition(selection),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        ...(download.size >= 0 ? { 'content-length': String(download.size) } : {}),
      });
      return reply.send(download.stream);
    },
  );
}
