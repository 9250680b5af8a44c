// The permission simulator: asks the server whether a key would be allowed one action, and which statement
// decided. A question, not a change: read-only admins may use it too.

import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import type { Simulation } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { Button, SelectField, TextField } from '../../ui/controls';
import { ErrorNote } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

const ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:ListBucket',
  's3:GetObjectTagging',
  's3:PutObjectTagging',
  's3:ListAllMyBuckets',
  's3:GetBucketPolicy',
];

export function Simulator({ accessKeyId, defaultBucket }: { accessKeyId: string; defaultBucket: string }) {
  const [action, setAction] = useState('s3:GetObject');
  const [bucket, setBucket] = useState(defaultBucket);
  const [key, setKey] = useState('');
  const [sourceIp, setSourceIp] = useState('');
  const [result, setResult] = useState<Simulation>();
  const {
    run: simulate,
    busy,
    error,
  } = useAction(async () => {
    setResult(
      await api.post<Simulation>(`/keys/${accessKeyId}/simulate`, {
        action,
        ...(bucket ? { bucket } : {}),
        ...(key ? { key } : {}),
        ...(sourceIp ? { context: { 'aws:SourceIp': sourceIp } } : {}),
      }),
    );
  });
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    await simulate();
  };
  return (
    <Card title="Simulator">
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <SelectField
          label="Action"
          value={action}
          onChange={(e) => setAction(e.target.value)}
          options={ACTIONS.map((a) => ({ value: a, label: a }))}
        />
        <div className="form-row">
          <TextField label="Bucket" value={bucket} onChange={(e) => setBucket(e.target.value)} />
          <TextField label="Key (or listing prefix)" value={key} onChange={(e) => setKey(e.target.value)} />
        </div>
        <TextField
          label="Source IP (aws:SourceIp, optional)"
          value={sourceIp}
          onChange={(e) => setSourceIp(e.target.value)}
        />
        <div>
          <Button type="submit" busy={busy}>
            Simulate
          </Button>
        </div>
      </form>
      {error ? <ErrorNote message={error} /> : null}
      {result ? (
        <p role="status" className="sim-result">
          {result.decision === 'allow' ? <Badge tone="ok">Allowed</Badge> : <Badge tone="bad">Denied</Badge>}{' '}
          {result.reason === 'implicit-deny'
            ? 'No statement allows it (implicit deny).'
            : result.reason === 'explicit-deny'
              ? 'A statement denies it.'
              : 'A statement allows it.'}
          {result.statement
            ? ` Statement ${result.statement.index + 1}${result.statement.sid ? ` (${result.statement.sid})` : ''} of the ${result.statement.source === 'key' ? "key's policy" : 'bucket policy'}.`
            : ''}
        </p>
      ) : null}
    </Card>
  );
}
