// CORS rules: which web origins may call the S3 API on this bucket from a browser, with which methods and headers.

import { useState } from 'react';
import { deleteConfig, getConfig, putConfig } from '../../api/configs';
import type { CorsRule } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { Button, Checkbox, TextArea, TextField, WriteFieldset } from '../../ui/controls';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Card } from '../../ui/layout';

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];

interface CorsForm {
  id: string;
  origins: string;
  methods: string[];
  headers: string;
  expose: string;
  maxAge: string;
}

const lines = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
const toForm = (r: CorsRule): CorsForm => ({
  id: r.id ?? '',
  origins: r.allowedOrigins.join('\n'),
  methods: r.allowedMethods,
  headers: (r.allowedHeaders ?? []).join('\n'),
  expose: (r.exposeHeaders ?? []).join('\n'),
  maxAge: r.maxAgeSeconds === undefined ? '' : String(r.maxAgeSeconds),
});

function toRule(f: CorsForm, i: number): CorsRule {
  const origins = lines(f.origins);
  if (origins.length === 0) throw new Error(`Rule ${i + 1}: list at least one origin (or *).`);
  if (f.methods.length === 0) throw new Error(`Rule ${i + 1}: choose at least one method.`);
  const maxAge = f.maxAge.trim();
  if (maxAge !== '' && !/^\d+$/.test(maxAge)) throw new Error(`Rule ${i + 1}: max age is a whole number of seconds.`);
  return {
    ...(f.id.trim() ? { id: f.id.trim() } : {}),
    allowedOrigins: origins,
    allowedMethods: f.methods,
    allowedHeaders: lines(f.headers),
    exposeHeaders: lines(f.expose),
    ...(maxAge !== '' ? { maxAgeSeconds: Number(maxAge) } : {}),
  };
}

export function CorsEditor({ bucket }: { bucket: string }) {
  const config = useResource((signal) => getConfig<{ rules: CorsRule[] }>(bucket, 'cors', signal), [bucket]);
  return (
    <Card title="CORS rules">
      <p className="muted">
        Browsers may call this bucket's S3 API from another origin only as these rules allow. The first rule that
        matches applies.
      </p>
      <Loaded resource={config} feature="CORS">
        {(c) => <Editor key={JSON.stringify(c)} bucket={bucket} initial={c?.rules ?? []} onSaved={config.reload} />}
      </Loaded>
    </Card>
  );
}

function Editor({ bucket, initial, onSaved }: { bucket: string; initial: CorsRule[]; onSaved: () => void }) {
  const [forms, setForms] = useState<CorsForm[]>(initial.map(toForm));
  const { notify } = useToast();
  const set = (i: number, patch: Partial<CorsForm>): void =>
    setForms((all) => all.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const {
    run: save,
    busy,
    error,
  } = useAction(async () => {
    const rules = forms.map(toRule);
    if (rules.length === 0) await deleteConfig(bucket, 'cors');
    else await putConfig(bucket, 'cors', { rules });
    notify(rules.length === 0 ? 'CORS configuration removed.' : 'CORS rules saved.');
    onSaved();
  });
  return (
    <div className="stack">
      {forms.length === 0 ? <Empty>No CORS rules: browsers on other origins cannot call this bucket.</Empty> : null}
      {forms.map((f, i) => (
        <WriteFieldset key={i} legend={`Rule ${i + 1}`} className="rule">
          <div className="form-row">
            <TextArea
              label="Allowed origins (one per line)"
              rows={2}
              value={f.origins}
              onChange={(e) => set(i, { origins: e.target.value })}
              placeholder="https://app.example.com"
            />
            <TextArea
              label="Allowed headers"
              rows={2}
              value={f.headers}
              onChange={(e) => set(i, { headers: e.target.value })}
              placeholder="*"
            />
            <TextArea
              label="Exposed headers"
              rows={2}
              value={f.expose}
              onChange={(e) => set(i, { expose: e.target.value })}
              placeholder="ETag"
            />
          </div>
          <div className="checks" role="group" aria-label={`Rule ${i + 1} methods`}>
            {METHODS.map((m) => (
              <Checkbox
                key={m}
                label={m}
                checked={f.methods.includes(m)}
                onChange={(e) =>
                  set(i, { methods: e.target.checked ? [...f.methods, m] : f.methods.filter((x) => x !== m) })
                }
              />
            ))}
          </div>
          <div className="form-row">
            <TextField
              label="Max age (seconds)"
              type="number"
              min={0}
              value={f.maxAge}
              onChange={(e) => set(i, { maxAge: e.target.value })}
            />
            <TextField label="Rule ID" value={f.id} onChange={(e) => set(i, { id: e.target.value })} />
          </div>
          <div>
            <Button variant="ghost" write onClick={() => setForms((all) => all.filter((_, j) => j !== i))}>
              Remove rule {i + 1}
            </Button>
          </div>
        </WriteFieldset>
      ))}
      {error ? <ErrorNote message={error} /> : null}
      <div className="actions">
        <Button
          icon="plus"
          write
          onClick={() =>
            setForms((all) => [...all, { id: '', origins: '', methods: ['GET'], headers: '', expose: '', maxAge: '' }])
          }
        >
          Add rule
        </Button>
        <Button variant="primary" write busy={busy} onClick={() => void save()}>
          Save CORS rules
        </Button>
      </div>
    </div>
  );
}
