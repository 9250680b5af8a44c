// Admin users: list, create (a temporary password shown once unless one is given), change role, reset password,
// delete. The server's rules are explained where they bite: the last full admin cannot be demoted or deleted, and
// nobody can delete their own account.

import { useState } from 'react';
import { api } from '../api';
import { ApiError, describeError } from '../api/errors';
import type { AdminUser, Role, UserWithPassword } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useResource } from '../hooks/use-resource';
import { useCanWrite, useSession } from '../hooks/use-session';
import { formatTime } from '../lib/format';
import { Button, SelectField, TextField } from '../ui/controls';
import { ShownOnce } from '../ui/copy';
import { ConfirmDialog, Dialog } from '../ui/dialog';
import { ErrorNote, Loaded, useToast } from '../ui/feedback';
import { Badge, PageHeader, TableWrap } from '../ui/layout';

const ROLES = [
  { value: 'full-admin', label: 'Full admin' },
  { value: 'read-only', label: 'Read-only' },
];

/** The 409 of a user change, in words. */
function userConflict(err: unknown): string {
  if (err instanceof ApiError && err.status === 409) {
    return `${err.message} (There must always be at least one full admin, and you cannot delete your own account.)`;
  }
  return describeError(err);
}

function CreateUserDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<Role>('read-only');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<UserWithPassword>();
  const {
    run: submit,
    busy,
    error,
  } = useAction(async () => {
    setCreated(await api.post<UserWithPassword>('/users', { username, role, ...(password ? { password } : {}) }));
    onCreated();
  });
  if (created) {
    return (
      <Dialog
        title={`User ${created.user.username} created`}
        onClose={onClose}
        footer={
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        }
      >
        {created.temporaryPassword ? <ShownOnce label="Temporary password" value={created.temporaryPassword} /> : null}
        <p>They must choose their own password when they first sign in.</p>
      </Dialog>
    );
  }
  return (
    <Dialog
      title="Add a user"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" write busy={busy}>
            Add user
          </Button>
        </>
      }
    >
      <TextField
        label="Username"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        autoFocus
        autoComplete="off"
        hint="Letters, digits, . _ @ -; up to 64."
      />
      <SelectField
        label="Role"
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
        options={ROLES}
        hint="Read-only admins see everything and can change nothing but their own password."
      />
      <TextField
        label="Initial password (optional)"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        hint="Leave empty to generate a temporary password, shown once."
      />
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}

export default function UsersPage() {
  const users = useResource((signal) => api.get<{ items: AdminUser[] }>('/users', undefined, signal), []);
  const { me } = useSession();
  const canWrite = useCanWrite();
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<AdminUser>();
  const [reset, setReset] = useState<UserWithPassword>();
  const [deleting, setDeleting] = useState<AdminUser>();
  const [error, setError] = useState<string>();
  const [promoting, setPromoting] = useState<{ user: AdminUser; role: Role }>();
  const { notify } = useToast();
  const fullAdmins = users.data?.items.filter((u) => u.role === 'full-admin').length ?? 0;

  const changeRole = async (u: AdminUser, role: Role): Promise<void> => {
    setError(undefined);
    try {
      await api.patch(`/users/${u.id}`, { role });
      notify(`${u.username} is now ${role === 'full-admin' ? 'a full admin' : 'read-only'}.`);
    } catch (err) {
      setError(userConflict(err));
    }
    users.reload();
  };
  // Granting full admin, and taking it from oneself, are confirmed before anything is sent (docs/console.md, "Users").
  const pickRole = (u: AdminUser, role: Role): void => {
    if (role === u.role) return;
    if (role === 'full-admin' || u.id === me?.id) setPromoting({ user: u, role });
    else void changeRole(u, role);
  };

  return (
    <>
      <PageHeader
        title="Users"
        subtitle="People who can sign in to this console and the admin API."
        actions={
          <>
            <Button icon="refresh" onClick={users.reload}>
              Refresh
            </Button>
            <Button variant="primary" icon="plus" write onClick={() => setCreating(true)}>
              Add user
            </Button>
          </>
        }
      />
      <p className="muted">There must always be at least one full admin, and nobody can delete their own account.</p>
      {error ? <ErrorNote message={error} /> : null}
      <Loaded resource={users} feature="Users">
        {(d) => (
          <TableWrap label="Users">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Password</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((u) => {
                  const lastAdmin = u.role === 'full-admin' && fullAdmins <= 1;
                  return (
                    <tr key={u.id}>
                      <th scope="row">
                        {u.username}
                        {u.id === me?.id ? (
                          <>
                            {' '}
                            <Badge tone="info">you</Badge>
                          </>
                        ) : null}
                      </th>
                      <td>
                        {canWrite ? (
                          <label>
                            <span className="visually-hidden">Role of {u.username}</span>
                            <select
                              className="input role-select"
                              data-write=""
                              value={u.role}
                              disabled={lastAdmin}
                              title={lastAdmin ? 'The last full admin cannot be demoted.' : undefined}
                              onChange={(e) => pickRole(u, e.target.value as Role)}
                            >
                              {ROLES.map((r) => (
                                <option key={r.value} value={r.value}>
                                  {r.label}
                                </option>
                              ))}
                            </select>
                          </label>
                        ) : (
                          <Badge tone={u.role === 'full-admin' ? 'neutral' : 'info'}>{u.role}</Badge>
                        )}
                      </td>
                      <td>{u.mustChangePassword ? <Badge tone="warn">must change</Badge> : 'set'}</td>
                      <td>{formatTime(u.createdAt)}</td>
                      <td className="row-actions">
                        <Button
                          variant="ghost"
                          write
                          onClick={() => setResetting(u)}
                          aria-label={`Reset password of ${u.username}`}
                        >
                          Reset password
                        </Button>
                        <Button
                          variant="ghost"
                          write
                          disabled={lastAdmin || u.id === me?.id}
                          onClick={() => setDeleting(u)}
                          aria-label={`Delete ${u.username}`}
                          title={
                            u.id === me?.id
                              ? 'You cannot delete your own account.'
                              : lastAdmin
                                ? 'The last full admin cannot be deleted.'
                                : undefined
                          }
                        >
                          Delete
                        </Button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
      {creating ? <CreateUserDialog onClose={() => setCreating(false)} onCreated={users.reload} /> : null}
      {promoting ? (
        <ConfirmDialog
          title={
            promoting.role === 'full-admin'
              ? `Make ${promoting.user.username} a full admin?`
              : 'Make yourself read-only?'
          }
          confirmLabel={promoting.role === 'full-admin' ? 'Make full admin' : 'Make me read-only'}
          danger={promoting.role !== 'full-admin'}
          onClose={() => setPromoting(undefined)}
          onConfirm={() => changeRole(promoting.user, promoting.role)}
        >
          {promoting.role === 'full-admin' ? (
            <p>
              A full admin can change everything on this server: buckets and objects, access keys, users (yours
              included), backups and restores.
            </p>
          ) : (
            <p>
              You lose every change right at once, this one included: only another full admin can give it back. You keep
              seeing every page and value.
            </p>
          )}
        </ConfirmDialog>
      ) : null}
      {resetting ? (
        <ConfirmDialog
          title={`Reset the password of ${resetting.username}?`}
          confirmLabel="Reset password"
          onClose={() => setResetting(undefined)}
          onConfirm={async () => {
            setReset(await api.post<UserWithPassword>(`/users/${resetting.id}/reset-password`));
            users.reload();
          }}
        >
          <p>
            A temporary password is generated and every session of {resetting.username} ends at once. They choose a new
            password at their next sign-in.
          </p>
        </ConfirmDialog>
      ) : null}
      {reset?.temporaryPassword ? (
        <Dialog
          title={`New password for ${reset.user.username}`}
          onClose={() => setReset(undefined)}
          footer={
            <Button variant="primary" onClick={() => setReset(undefined)}>
              Done
            </Button>
          }
        >
          <ShownOnce label="Temporary password" value={reset.temporaryPassword} />
        </Dialog>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.username}?`}
          confirmLabel="Delete user"
          danger
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            try {
              await api.del(`/users/${deleting.id}`);
            } catch (err) {
              throw new Error(userConflict(err));
            }
            notify(`${deleting.username} deleted.`);
            users.reload();
          }}
        >
          <p>Their sessions end at once. Their past actions stay in the audit log.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
