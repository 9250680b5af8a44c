// The admin API's JSON body parser: Fastify's own (prototype-poisoning checks kept), after a nesting check. JSON.parse
// takes arrays nested ~100,000 deep in well under the body limit, and the first JSON.stringify or recursive walk of
// such a body overflows the stack: a 500 (found for bucket policies and key permissions). No admin body nests deeply.

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';

/** Deeper than any admin document (a policy's Condition values sit at about 6). */
export const MAX_JSON_DEPTH = 64;

/** True when brackets outside strings nest deeper than `max` (a linear scan; the text need not be valid JSON). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Replaces the JSON parser of this scope. A body nested too deep is AppError ValidationError (400) naming `body`. */
export function installJsonDepthLimit(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      done(
        new AppError('ValidationError', { message: `body: JSON nested deeper than ${MAX_JSON_DEPTH} levels` }),
        undefined,
      );
      return;
    }
    parse(req, body as string, done);
  });
}
