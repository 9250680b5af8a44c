// Changing your own password (also the forced change at first sign-in). The server's rules: at least 12 characters,
// at least 5 different ones, not the username; a refusal names the field.

import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { ApiError, describeError } from '../api/errors';
import { useAction } from '../hooks/use-action';
import { Button, TextField } from '../ui/controls';
import { ErrorNote } from '../ui/feedback';

export function passwordProblem(password: string, confirm: string): string | undefined {
  if (password.length < 12) return 'At least 12 characters.';
  if (new Set(password).size < 5) return 'Use at least 5 different characters.';
  if (password !== confirm) return 'The two new passwords differ.';
  return undefined;
}

export function ChangePasswordForm({ onDone }: { onDone: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [touched, setTouched] = useState(false);
  const problem = passwordProblem(next, confirm);

  const {
    run: change,
    busy,
    error,
  } = useAction(
    async () => {
      await api.post('/settings/change-password', { currentPassword: current, newPassword: next });
      setCurrent('');
      setNext('');
      setConfirm('');
      setTouched(false);
      onDone();
    },
    (err) => (err instanceof ApiError && err.code === 'ValidationError' ? err.message : describeError(err)),
  );
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setTouched(true);
    if (!problem) await change();
  };

  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
        required
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={(e) => setNext(e.target.value)}
        required
        hint="At least 12 characters and 5 different ones; not your username."
      />
      <TextField
        label="Repeat the new password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        required
        error={touched ? problem : undefined}
      />
      {error ? <ErrorNote message={error} /> : null}
      <div>
        <Button type="submit" variant="primary" busy={busy}>
          Change password
        </Button>
      </div>
    </form>
  );
}
