// The admin API's object-work shapes (copy and move, metadata edits, folder sums, emptying a bucket), from the
// server's own schemas, imported as types only (see types.ts).

import type { Static } from '@sinclair/typebox';
import type * as Work from '../../../src/http/admin/routes/object-work-schemas.js';

export type TransferBody = Static<typeof Work.TransferBody>;
export type TransferResult = Static<typeof Work.TransferResponse>;
export type MetadataBody = Static<typeof Work.MetadataBody>;
export type MetadataResult = Static<typeof Work.MetadataResponse>;
export type PrefixSummary = Static<typeof Work.SummaryResponse>;
export type EmptyResult = Static<typeof Work.EmptyResponse>;
