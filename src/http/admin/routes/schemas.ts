// Schemas shared by admin routes.

import { Type } from '@sinclair/typebox';

/** The error envelope of every admin failure (SPEC "Errors"). */
export const ErrorBody = Type.Object({ error: Type.String(), message: Type.String(), statusCode: Type.Integer() });
