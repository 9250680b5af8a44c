// Admin identities and roles (SPEC "Authentication" > Roles): a full admin may do everything, a read-only admin
// may read everything and gets 403 on any state-changing method.

export type AdminRole = 'full-admin' | 'read-only';
export const ADMIN_ROLES: readonly AdminRole[] = ['full-admin', 'read-only'];

export interface AdminIdentity {
  /** The admin user's id (stable across renames). */
  id: string;
  username: string;
  /** Read from the database on every request, so a demotion applies to the next request. */
  role: AdminRole;
}
