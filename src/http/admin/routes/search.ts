// GET /objects/search: cross-bucket search of current objects by key substring, prefix, size and last-modified range
// (docs/admin-search.md). Read-only, so never audited.

import { Type } from '@sinclair/typebox';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  type ObjectSearchService,
} from '../../../services/objects/object-search-service.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody } from './schemas.js';

export interface SearchRouteDeps {
  search: ObjectSearchService;
}

const text = (description: string) => Type.String({ maxLength: 1024, description });
const bytes = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
const instant = (description: string) => Type.String({ maxLength: 64, description });

const SearchQuerystring = Type.Object(
  {
    q: Type.Optional(text('Key substring, case-sensitive unless ignoreCase. Empty: no filter.')),
    ignoreCase: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Fold ASCII letters when matching q (other characters stay exact).',
      }),
    ),
    prefix: Type.Optional(text('Key prefix, case-sensitive.')),
    bucket: Type.Optional(Type.String({ maxLength: 255, description: 'Only this bucket.' })),
    minSize: Type.Optional(bytes('Smallest size in bytes, inclusive.')),
    maxSize: Type.Optional(bytes('Largest size in bytes, inclusive.')),
    from: Type.Optional(instant('ISO 8601: last modified at or after this instant (a date alone is midnight UTC).')),
    to: Type.Optional(instant('ISO 8601: last modified before this instant.')),
    tagKey: Type.Optional(text('Only objects with a tag of this key (exact case).')),
    tagValue: Type.Optional(text('With tagKey: only where that tag has this value (exact case). Empty: any value.')),
    cursor: Type.Optional(
      Type.String({ maxLength: 8192, description: 'nextCursor of the previous page, with the same filters.' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT, description: 'Page size.' }),
    ),
  },
  { additionalProperties: false },
);

const SearchItem = Type.Object({
  bucket: Type.String(),
  key: Type.String(),
  size: Type.Integer(),
  etag: Type.String({ description: 'Hex MD5, or <hex>-<parts> for multipart uploads; unquoted.' }),
  lastModified: Type.String({ format: 'date-time' }),
});
const SearchResponse = Type.Object({
  items: Type.Array(SearchItem),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pass as cursor for the next page; null at the end. A page may hold fewer than limit items (even none) and still have one.',
  }),
});

export function searchRoutes(app: AdminApp, deps: SearchRouteDeps): void {
  app.get(
    '/objects/search',
    {
      schema: {
        operationId: 'searchObjects',
        tags: ['objects'],
        summary: 'Search current objects across buckets by key substring, prefix, size, last-modified range and tag',
        querystring: SearchQuerystring,
        response: { 200: SearchResponse, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => deps.search.search(req.query),
  );
}
