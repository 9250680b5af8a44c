// The console's one API client, session and transfer helper, rooted at the admin API of the mount the console was
// served under (the <base> element the server wrote).

import { consolePaths } from '../lib/base-path';
import { Api } from './client';
import { Session } from './session';
import { Transfers } from './transfer';

export const paths = consolePaths(new URL(document.baseURI).pathname);
export const session = new Session(paths.apiBase);
export const api = new Api(session, paths.apiBase);
export const transfers = new Transfers(api, session);
export { Api } from './client';
export { ApiError, describeError } from './errors';
