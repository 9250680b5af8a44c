// The session as React state, and whether the signed-in admin may change anything.

import { useSyncExternalStore } from 'react';
import { session } from '../api';
import type { SessionSnapshot } from '../api/session';

export function useSession(): SessionSnapshot {
  return useSyncExternalStore(session.subscribe, session.getSnapshot);
}

/** False for a read-only admin: pages then render no control that would change anything. */
export function useCanWrite(): boolean {
  return useSession().me?.role === 'full-admin';
}
