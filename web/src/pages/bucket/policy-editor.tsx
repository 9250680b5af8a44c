// The bucket policy as JSON, checked as you type (syntax with line and column, then the statement shape); the
// server's own check (MalformedPolicy and its reason) is shown when it refuses.

import { useMemo, useState } from 'react';
import { deleteConfig, getConfig, putConfig } from '../../api/configs';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { parseJson, policyProblems } from '../../lib/json-check';
import { Button, TextArea, WriteFieldset } from '../../ui/controls';
import { ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

function template(bucket: string): string {
  return JSON.stringify(
    {
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'PublicRead',
          Effect: 'Allow',
          Principal: '*',
          Action: ['s3:GetObject'],
          Resource: [`arn:aws:s3:::${bucket}/*`],
        },
      ],
    },
    null,
    2,
  );
}

function Editor({ bucket, initial, onSaved }: { bucket: string; initial: unknown; onSaved: () => void }) {
  const [text, setText] = useState(initial === null ? '' : JSON.stringify(initial, null, 2));
  const { notify } = useToast();
  const { run, busy, error } = useAction(async (fn: () => Promise<unknown>, done: string) => {
    await fn();
    notify(done);
    onSaved();
  });
  const problems = useMemo(() => {
    if (text.trim() === '') return [];
    const parsed = parseJson(text);
    return parsed.ok ? policyProblems(parsed.value, { requirePrincipal: true }) : [parsed.message];
  }, [text]);
  const parsed = parseJson(text);
  return (
    <div className="stack">
      <p>Policy: {initial === null ? <Badge>not set</Badge> : <Badge tone="ok">set</Badge>}</p>
      <WriteFieldset legend={<span className="visually-hidden">Bucket policy</span>}>
        <TextArea
          label="Policy document (JSON)"
          rows={16}
          className="code"
          value={text}
          onChange={(e) => setText(e.target.value)}
          error={problems.length > 0 ? problems.join(' ') : undefined}
          placeholder={template(bucket)}
        />
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <div className="actions">
        <Button write onClick={() => setText(template(bucket))}>
          Insert a public-read example
        </Button>
        <Button
          variant="primary"
          write
          busy={busy}
          disabled={text.trim() === '' || problems.length > 0 || !parsed.ok}
          onClick={() => parsed.ok && void run(() => putConfig(bucket, 'policy', parsed.value), 'Bucket policy saved.')}
        >
          Save policy
        </Button>
        {initial !== null ? (
          <Button
            variant="danger"
            write
            busy={busy}
            onClick={() => void run(() => deleteConfig(bucket, 'policy'), 'Bucket policy removed.')}
          >
            Delete policy
          </Button>
        ) : null}
      </div>
    </div>
  );
}

export function PolicyEditor({ bucket }: { bucket: string }) {
  const policy = useResource((signal) => getConfig<Record<string, unknown>>(bucket, 'policy', signal), [bucket]);
  return (
    <Card title="Bucket policy">
      <p className="muted">
        An IAM-style policy evaluated on every S3 request to this bucket, together with the access key's own
        permissions. An explicit Deny always wins.
      </p>
      <Loaded resource={policy} feature="Bucket policy">
        {(p) => <Editor key={JSON.stringify(p)} bucket={bucket} initial={p} onSaved={policy.reload} />}
      </Loaded>
    </Card>
  );
}
