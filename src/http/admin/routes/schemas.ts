// Schemas shared by admin routes.

import { Type, type TUnsafe } from '@sinclair/typebox';

/** The error envelope of every admin failure (SPEC "Errors"). */
export const ErrorBody = Type.Object({ error: Type.String(), message: Type.String(), statusCode: Type.Integer() });

/**
 * An empty answer (204): @fastify/swagger documents `type: 'null'` as a response without content, and its type is
 * void, so a handler answers `reply.status(204).send()` with nothing to send.
 */
export const noContent = (description: string): TUnsafe<void> => Type.Unsafe<void>({ type: 'null', description });
