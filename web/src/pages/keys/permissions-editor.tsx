// The scope editor of an access key: a prefix scope (one bucket, an optional key prefix, the allowed actions), an
// inline IAM-style policy, or nothing (denied everything).

import { useMemo } from 'react';
import { KEY_ACTIONS, type KeyAction, type KeyPermissions } from '../../api/types';
import { parseJson, policyProblems } from '../../lib/json-check';
import { Checkbox, SelectField, TextArea, TextField } from '../../ui/controls';

export interface PermissionsForm {
  mode: 'scope' | 'policy' | 'none';
  bucket: string;
  prefix: string;
  actions: KeyAction[];
  policy: string;
}

const ACTION_TEXT: Record<KeyAction, string> = {
  GetObject: 'Read objects (GetObject)',
  PutObject: 'Write objects (PutObject)',
  DeleteObject: 'Delete objects (DeleteObject)',
  ListBucket: 'List keys (ListBucket)',
};

export function formFromPermissions(p: KeyPermissions | null): PermissionsForm {
  if (p?.scope)
    return {
      mode: 'scope',
      bucket: p.scope.bucket,
      prefix: p.scope.prefix ?? '',
      actions: p.scope.actions ?? [...KEY_ACTIONS],
      policy: '',
    };
  if (p?.policy)
    return {
      mode: 'policy',
      bucket: '',
      prefix: '',
      actions: [...KEY_ACTIONS],
      policy: typeof p.policy === 'string' ? p.policy : JSON.stringify(p.policy, null, 2),
    };
  return { mode: 'none', bucket: '', prefix: '', actions: [...KEY_ACTIONS], policy: '' };
}

/** The API's `permissions` for a form; throws an Error naming what is missing. */
export function permissionsFromForm(f: PermissionsForm): KeyPermissions | null {
  if (f.mode === 'none') return null;
  if (f.mode === 'scope') {
    if (f.bucket === '') throw new Error('Bucket: choose the bucket this key may use.');
    if (f.actions.length === 0) throw new Error('Actions: allow at least one action.');
    return { scope: { bucket: f.bucket, ...(f.prefix ? { prefix: f.prefix } : {}), actions: f.actions } };
  }
  const parsed = parseJson(f.policy);
  if (!parsed.ok) throw new Error(`Policy: ${parsed.message}`);
  const problems = policyProblems(parsed.value, { requirePrincipal: false });
  if (problems.length > 0) throw new Error(`Policy: ${problems.join(' ')}`);
  return { policy: parsed.value as Record<string, unknown> };
}

export function describePermissions(p: KeyPermissions | null): string {
  if (p?.scope) {
    const actions = p.scope.actions ?? KEY_ACTIONS;
    return `${actions.length === KEY_ACTIONS.length ? 'Full access' : actions.join(', ')} to ${p.scope.bucket}/${p.scope.prefix ? `${p.scope.prefix}*` : '*'}`;
  }
  if (p?.policy) return 'Custom policy';
  return 'No permissions (denied everything)';
}

export function PermissionsEditor({
  form,
  onChange,
  buckets,
}: {
  form: PermissionsForm;
  onChange: (f: PermissionsForm) => void;
  buckets: string[];
}) {
  const set = (patch: Partial<PermissionsForm>): void => onChange({ ...form, ...patch });
  const policyError = useMemo(() => {
    if (form.mode !== 'policy' || form.policy.trim() === '') return undefined;
    const parsed = parseJson(form.policy);
    if (!parsed.ok) return parsed.message;
    return policyProblems(parsed.value, { requirePrincipal: false }).join(' ') || undefined;
  }, [form.mode, form.policy]);
  return (
    <fieldset className="fieldset">
      <legend>Permissions</legend>
      <SelectField
        label="Kind"
        value={form.mode}
        onChange={(e) => set({ mode: e.target.value as PermissionsForm['mode'] })}
        options={[
          { value: 'scope', label: 'One bucket (and prefix), chosen actions' },
          { value: 'policy', label: 'A policy document' },
          { value: 'none', label: 'None (denied everything)' },
        ]}
      />
      {form.mode === 'scope' ? (
        <>
          <div className="form-row">
            <SelectField
              label="Bucket"
              value={form.bucket}
              onChange={(e) => set({ bucket: e.target.value })}
              options={[{ value: '', label: 'Choose a bucket' }, ...buckets.map((b) => ({ value: b, label: b }))]}
            />
            <TextField
              label="Only keys starting with"
              value={form.prefix}
              onChange={(e) => set({ prefix: e.target.value })}
              placeholder="e.g. uploads/ (empty: the whole bucket)"
            />
          </div>
          <div className="checks" role="group" aria-label="Allowed actions">
            {KEY_ACTIONS.map((a) => (
              <Checkbox
                key={a}
                label={ACTION_TEXT[a]}
                checked={form.actions.includes(a)}
                onChange={(e) =>
                  set({ actions: e.target.checked ? [...form.actions, a] : form.actions.filter((x) => x !== a) })
                }
              />
            ))}
          </div>
          <p className="hint">
            Listing is limited to the prefix too. Anything not allowed here is denied; a bucket policy's explicit Deny
            still wins.
          </p>
        </>
      ) : null}
      {form.mode === 'policy' ? (
        <TextArea
          label="Policy (JSON; no Principal: the key is the principal)"
          rows={12}
          className="code"
          value={form.policy}
          error={policyError}
          onChange={(e) => set({ policy: e.target.value })}
          placeholder={
            '{\n  "Version": "2012-10-17",\n  "Statement": [{ "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket/*" }]\n}'
          }
        />
      ) : null}
    </fieldset>
  );
}
