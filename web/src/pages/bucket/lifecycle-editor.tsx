// Lifecycle rules as a form, not XML: scope (prefix, tags, sizes), expiration, transitions, noncurrent versions,
// incomplete multipart uploads. Saved as a whole (S3 replaces the configuration); the server's refusal is shown.

import { useState } from 'react';
import { api } from '../../api';
import { deleteConfig, getConfig, putConfig } from '../../api/configs';
import { describeError } from '../../api/errors';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { useCanWrite } from '../../hooks/use-session';
import type { ReplicationStatus } from '../../api/types';
import { lifecycleSummary } from '../../lib/bucket-summary';
import {
  emptyRule,
  formToRule,
  ruleToForm,
  STORAGE_CLASSES,
  type LifecycleRule,
  type RuleForm,
  type TransitionForm,
} from '../../lib/lifecycle-form';
import { Button, Checkbox, SelectField, TextField, WriteFieldset } from '../../ui/controls';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Card } from '../../ui/layout';

const classOptions = STORAGE_CLASSES.map((c) => ({ value: c, label: c }));

function Transitions({
  label,
  items,
  onChange,
  daysLabel,
  tieringOn,
}: {
  label: string;
  items: TransitionForm[];
  onChange: (t: TransitionForm[]) => void;
  daysLabel: string;
  tieringOn: boolean;
}) {
  return (
    <div className="stack-sm">
      {items.length > 0 && !tieringOn ? (
        <p className="note note-warn" data-testid="transitions-inert">
          Tiering is off on this server: {label.toLowerCase()}s are kept in the rule but move nothing. They take effect
          once tiering is turned on (STORE_TIER_ENABLED, docs/replication.md).
        </p>
      ) : null}
      {items.map((t, i) => (
        <div className="form-row" key={i}>
          <TextField
            label={`${label} ${i + 1}: ${daysLabel}`}
            type="number"
            min={0}
            value={t.days}
            onChange={(e) => onChange(items.map((x, j) => (j === i ? { ...x, days: e.target.value } : x)))}
          />
          <SelectField
            label="Storage class"
            value={t.storageClass}
            options={classOptions}
            onChange={(e) => onChange(items.map((x, j) => (j === i ? { ...x, storageClass: e.target.value } : x)))}
          />
          <Button
            variant="ghost"
            write
            onClick={() => onChange(items.filter((_, j) => j !== i))}
            aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
          >
            Remove
          </Button>
        </div>
      ))}
      <div>
        <Button write icon="plus" onClick={() => onChange([...items, { days: '30', storageClass: 'STANDARD_IA' }])}>
          Add {label.toLowerCase()}
        </Button>
      </div>
    </div>
  );
}

function RuleFields({
  form,
  index,
  tieringOn,
  onChange,
  onRemove,
}: {
  form: RuleForm;
  index: number;
  tieringOn: boolean;
  onChange: (f: RuleForm) => void;
  onRemove: () => void;
}) {
  const set = (patch: Partial<RuleForm>): void => onChange({ ...form, ...patch });
  return (
    <WriteFieldset legend={`Rule ${index + 1}${form.id ? `: ${form.id}` : ''}`} className="rule">
      <div className="form-row">
        <TextField
          label="Rule name (ID)"
          value={form.id}
          onChange={(e) => set({ id: e.target.value })}
          hint="Assigned by the server when empty."
        />
        <TextField
          label="Only keys starting with"
          value={form.prefix}
          onChange={(e) => set({ prefix: e.target.value })}
          placeholder="e.g. logs/"
        />
      </div>
      <Checkbox label="Rule enabled" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
      <div className="form-row">
        <TextField
          label="Only objects larger than (bytes)"
          type="number"
          min={0}
          value={form.minSize}
          onChange={(e) => set({ minSize: e.target.value })}
        />
        <TextField
          label="Only objects smaller than (bytes)"
          type="number"
          min={1}
          value={form.maxSize}
          onChange={(e) => set({ maxSize: e.target.value })}
        />
      </div>
      <h3 className="subhead">Current versions</h3>
      <div className="form-row">
        <TextField
          label="Expire after (days)"
          type="number"
          min={1}
          value={form.expireDays}
          onChange={(e) => set({ expireDays: e.target.value })}
        />
        <Checkbox
          label="Remove expired delete markers"
          checked={form.expireDeleteMarkers}
          onChange={(e) => set({ expireDeleteMarkers: e.target.checked })}
        />
      </div>
      <Transitions
        label="Transition"
        daysLabel="after days"
        items={form.transitions}
        tieringOn={tieringOn}
        onChange={(transitions) => set({ transitions })}
      />
      <h3 className="subhead">Noncurrent versions</h3>
      <div className="form-row">
        <TextField
          label="Expire noncurrent after (days)"
          type="number"
          min={1}
          value={form.noncurrentDays}
          onChange={(e) => set({ noncurrentDays: e.target.value })}
        />
        <TextField
          label="But keep the newest (versions)"
          type="number"
          min={1}
          value={form.keepNewer}
          onChange={(e) => set({ keepNewer: e.target.value })}
        />
      </div>
      <Transitions
        label="Noncurrent transition"
        daysLabel="days noncurrent"
        items={form.noncurrentTransitions}
        tieringOn={tieringOn}
        onChange={(noncurrentTransitions) => set({ noncurrentTransitions })}
      />
      <h3 className="subhead">Incomplete multipart uploads</h3>
      <TextField
        label="Abort after (days)"
        type="number"
        min={1}
        value={form.abortDays}
        onChange={(e) => set({ abortDays: e.target.value })}
      />
      <div>
        <Button variant="ghost" write onClick={onRemove}>
          Remove rule {index + 1}
        </Button>
      </div>
    </WriteFieldset>
  );
}

function Editor({
  bucket,
  initial,
  tieringOn,
  onSaved,
}: {
  bucket: string;
  initial: LifecycleRule[];
  tieringOn: boolean;
  onSaved: () => void;
}) {
  const [forms, setForms] = useState<RuleForm[]>(initial.map(ruleToForm));
  const { notify } = useToast();
  const canWrite = useCanWrite();
  const {
    run: put,
    busy,
    error,
    setError,
  } = useAction(async (rules: LifecycleRule[]) => {
    if (rules.length === 0) await deleteConfig(bucket, 'lifecycle');
    else await putConfig(bucket, 'lifecycle', { rules });
    notify(rules.length === 0 ? 'Lifecycle configuration removed.' : 'Lifecycle rules saved.');
    onSaved();
  });
  const save = async (): Promise<void> => {
    setError(undefined);
    let rules: LifecycleRule[];
    try {
      rules = forms.map((f, i) => formToRule(f, i));
    } catch (err) {
      setError(describeError(err));
      return;
    }
    await put(rules);
  };
  return (
    <div className="stack">
      {initial.length > 0 ? (
        <ul className="rule-summary">
          {lifecycleSummary(initial, tieringOn).map((line, i) => (
            <li key={initial[i]?.id ?? i}>{line}</li>
          ))}
        </ul>
      ) : null}
      {forms.length === 0 ? (
        <Empty>No lifecycle rules.{canWrite ? ' Add one to expire or transition objects automatically.' : ''}</Empty>
      ) : null}
      {forms.map((f, i) => (
        <RuleFields
          key={i}
          form={f}
          index={i}
          tieringOn={tieringOn}
          onChange={(next) => setForms((all) => all.map((x, j) => (j === i ? next : x)))}
          onRemove={() => setForms((all) => all.filter((_, j) => j !== i))}
        />
      ))}
      {error ? <ErrorNote message={error} /> : null}
      <div className="actions">
        <Button icon="plus" write onClick={() => setForms((f) => [...f, emptyRule()])}>
          Add rule
        </Button>
        <Button variant="primary" write busy={busy} onClick={() => void save()}>
          Save lifecycle rules
        </Button>
      </div>
    </div>
  );
}

export function LifecycleEditor({ bucket }: { bucket: string }) {
  const config = useResource((signal) => getConfig<{ rules: LifecycleRule[] }>(bucket, 'lifecycle', signal), [bucket]);
  // Transitions move versions only while tiering is on (docs/replication.md, "Tiering"); the editor says so.
  const replication = useResource((signal) => api.get<ReplicationStatus>('/replication/status', undefined, signal), []);
  const tieringOn = Boolean(replication.data?.tiering?.enabled);
  return (
    <Card title="Lifecycle rules">
      <p className="muted">
        Rules run in the background: they expire objects and old versions, move them to colder storage classes, and
        clean up abandoned uploads.
      </p>
      <Loaded resource={config} feature="Lifecycle">
        {(c) => (
          <Editor
            key={JSON.stringify(c)}
            bucket={bucket}
            initial={c?.rules ?? []}
            tieringOn={tieringOn}
            onSaved={config.reload}
          />
        )}
      </Loaded>
    </Card>
  );
}
