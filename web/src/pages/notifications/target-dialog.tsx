// Create or edit a notification target (docs/console.md "Notifications"): the kind's fields from lib/notifications.ts.
// Secret fields are write-only: editing shows whether each is set and says "unchanged" (left empty, the server keeps
// the stored one); a stored secret never reaches the browser.

import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import type { NotificationTarget } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import {
  fieldsOf,
  formValues,
  settingsOf,
  TARGET_KIND_LABELS,
  type Field,
  type FormValues,
  type TargetKind,
} from '../../lib/notifications';
import { Button, Checkbox, SelectField, TextField } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';
import { ErrorNote } from '../../ui/feedback';
import { Facts } from '../../ui/layout';

const KINDS = Object.keys(TARGET_KIND_LABELS) as TargetKind[];
const TARGET_ID = /^[A-Za-z0-9_-]{1,64}$/;

function secretHint(field: Field, existing: NotificationTarget | undefined): string | undefined {
  if (existing === undefined) return field.hint;
  const isSet = existing.secretsSet.includes(field.name);
  return `${isSet ? 'Set: leave empty to keep it unchanged.' : 'Not set.'}${field.hint ? ` ${field.hint}` : ''}`;
}

function FieldInput(props: {
  field: Field;
  value: string | boolean | undefined;
  onChange: (value: string | boolean) => void;
  existing: NotificationTarget | undefined;
}) {
  const { field, value, onChange, existing } = props;
  const label = `${field.label}${field.required ? ' (required)' : ''}`;
  if (field.type === 'checkbox')
    return <Checkbox label={field.label} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  if (field.type === 'select')
    return (
      <SelectField
        label={label}
        hint={field.hint}
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value)}
        options={(field.options ?? []).map((o) => ({ value: o, label: o }))}
      />
    );
  if (field.type === 'secret') {
    const isSet = existing?.secretsSet.includes(field.name) ?? false;
    return (
      <TextField
        label={field.label}
        hint={secretHint(field, existing)}
        type="password"
        autoComplete="new-password"
        placeholder={isSet ? 'unchanged' : ''}
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <TextField
      label={label}
      hint={field.hint}
      inputMode={field.type === 'number' ? 'numeric' : undefined}
      autoComplete="off"
      spellCheck={false}
      value={String(value ?? '')}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The dialog; `existing` edits that target (its id and kind stay), otherwise a new one is created. */
export function TargetDialog(props: {
  existing?: NotificationTarget;
  onClose: () => void;
  onSaved: (target: NotificationTarget) => void;
}) {
  const { existing, onClose, onSaved } = props;
  const [id, setId] = useState(existing?.id ?? '');
  const [kind, setKind] = useState<TargetKind>(existing?.kind ?? 'webhook');
  const [values, setValues] = useState<FormValues>(() => formValues(kind, existing?.config));
  const { run, busy, error, setError } = useAction(async (config: Record<string, unknown>) => {
    const saved = existing
      ? await api.put<NotificationTarget>(`/notification-targets/${encodeURIComponent(existing.id)}`, { kind, config })
      : await api.post<NotificationTarget>('/notification-targets', { id: id.trim(), kind, config });
    onSaved(saved);
  });
  const submit = (e?: FormEvent): void => {
    e?.preventDefault();
    if (!existing && !TARGET_ID.test(id.trim())) {
      setError('The id is 1 to 64 letters, digits, - or _.');
      return;
    }
    const config = settingsOf(kind, values);
    if (typeof config === 'string') {
      setError(config);
      return;
    }
    void run(config);
  };
  return (
    <Dialog
      title={existing ? `Edit target ${existing.id}` : 'Add a notification target'}
      onClose={onClose}
      onSubmit={submit}
      wide
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" write busy={busy}>
            {existing ? 'Save target' : 'Add target'}
          </Button>
        </>
      }
    >
      {existing ? (
        <Facts
          items={[
            ['Id', existing.id],
            ['Kind', TARGET_KIND_LABELS[existing.kind]],
          ]}
        />
      ) : (
        <div className="form-row">
          <TextField
            label="Id (required)"
            hint="1 to 64 letters, digits, - or _; it becomes part of the ARN."
            value={id}
            onChange={(e) => setId(e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
          <SelectField
            label="Kind"
            value={kind}
            onChange={(e) => {
              const next = e.target.value as TargetKind;
              setKind(next);
              setValues(formValues(next));
            }}
            options={KINDS.map((k) => ({ value: k, label: TARGET_KIND_LABELS[k] }))}
          />
        </div>
      )}
      <div className="stack-sm">
        {fieldsOf(kind).map((f) => (
          <FieldInput
            key={`${kind}.${f.name}`}
            field={f}
            value={values[f.name]}
            existing={existing}
            onChange={(v) => setValues((all) => ({ ...all, [f.name]: v }))}
          />
        ))}
      </div>
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
