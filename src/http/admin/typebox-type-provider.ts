// The Fastify type provider for TypeBox schemas (what @fastify/type-provider-typebox exports, in six lines): a route's
// `request.body`, `params`, `querystring` and its reply types are the `Static` of the schemas it declares, so a
// handler cannot read a field its schema does not have. Types only: validation stays Fastify's own Ajv.

import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';

/** Maps a route's TypeBox schemas to the types of what it receives and what it answers. */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}

/** The admin API's Fastify instance: every route under it is typed from its schemas. */
export type AdminApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
