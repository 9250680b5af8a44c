// Sign-in. The access token it obtains stays in memory; the refresh cookie keeps the session across reloads.

import { useState, type FormEvent } from 'react';
import { session } from '../api';
import { ApiError, describeError } from '../api/errors';
import { useAction } from '../hooks/use-action';
import { Button, TextField } from '../ui/controls';
import { ErrorNote } from '../ui/feedback';

export function LoginPage({ notice }: { notice?: string }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');

  const {
    run: signIn,
    busy,
    error,
  } = useAction(
    () => session.signIn(username, password),
    (err) => (err instanceof ApiError && err.status === 401 ? 'Wrong username or password.' : describeError(err)),
  );
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    await signIn();
  };

  return (
    <main className="auth-page" id="main">
      <form className="auth-card" onSubmit={(e) => void submit(e)}>
        <h1>Sign in to Store</h1>
        {notice ? <p className="note note-info">{notice}</p> : null}
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          required
          autoFocus
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        {error ? <ErrorNote message={error} /> : null}
        <Button type="submit" variant="primary" busy={busy}>
          Sign in
        </Button>
      </form>
    </main>
  );
}
