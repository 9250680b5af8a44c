// Operations routed but not built yet: each answers 501 NotImplemented (never a wrong success) until its
// handler replaces the entry in handlers/index.ts.

import { AppError } from '../../../core/errors.js';
import type { S3Context, S3Response } from '../context.js';

export function notYet(feature: string): (ctx: S3Context) => Promise<S3Response> {
  return async () => {
    throw new AppError('NotImplemented', { message: `Store does not implement ${feature} yet.` });
  };
}
