// Folder sizes in the admin API: the object count and total bytes under a prefix, summed on demand and bounded
// (services/objects/prefix-summary.ts).

import { summarizePrefix } from '../../../services/objects/prefix-summary.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { MAX_SUMMARY_OBJECTS, SummaryQuery, SummaryResponse } from './object-work-schemas.js';
import { ErrorBody } from './schemas.js';

/** GET /buckets/:name/objects/summary. */
export function objectSummaryRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.get(
    '/buckets/:name/objects/summary',
    {
      schema: {
        operationId: 'summarizePrefix',
        tags: ['objects'],
        summary: 'Object count and total size under a prefix, at any depth (bounded)',
        description:
          `Reads at most ${MAX_SUMMARY_OBJECTS.toLocaleString('en-US')} current objects; past that, answers what it ` +
          'counted with truncated: true. Folder markers (zero-byte keys ending in /) are not counted.',
        params: BucketNameParams,
        querystring: SummaryQuery,
        response: { 200: SummaryResponse, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const prefix = req.query.prefix;
      const sum = await summarizePrefix(
        deps.listing,
        { bucket: bucketOf(req), prefix },
        { bound: MAX_SUMMARY_OBJECTS },
      );
      return { prefix, ...sum, bound: MAX_SUMMARY_OBJECTS };
    },
  );
}
