// The bucket's event notifications (docs/console.md "Notifications"): each configuration's Id, the target (chosen from
// the defined targets by ARN), the events (AWS's names, `:*` wildcards included) and the key prefix and suffix.
// Saved as one document through the admin API; the server's refusals (an unknown ARN, overlapping configurations)
// are shown beside the Save button in words.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { BucketNotification, NotificationRuleView, NotificationTarget } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { EVENT_GROUPS, normaliseEvents, TARGET_KIND_LABELS } from '../../lib/notifications';
import { Link } from '../../router';
import { Button, Checkbox, SelectField, TextField, WriteFieldset } from '../../ui/controls';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Card } from '../../ui/layout';

interface RuleForm {
  id: string;
  arn: string;
  events: string[];
  prefix: string;
  suffix: string;
  kind: NotificationRuleView['kind'];
}

interface EventsData {
  config: BucketNotification;
  targets: NotificationTarget[];
}

const toForm = (r: NotificationRuleView): RuleForm => ({
  id: r.id,
  arn: r.arn,
  events: r.events,
  prefix: r.prefix ?? '',
  suffix: r.suffix ?? '',
  kind: r.kind,
});

function toRule(f: RuleForm, i: number) {
  if (f.arn === '') throw new Error(`Configuration ${i + 1}: choose a target.`);
  const events = normaliseEvents(f.events);
  if (events.length === 0) throw new Error(`Configuration ${i + 1}: choose at least one event.`);
  return {
    ...(f.id.trim() ? { id: f.id.trim() } : {}),
    kind: f.kind,
    arn: f.arn,
    events,
    ...(f.prefix ? { prefix: f.prefix } : {}),
    ...(f.suffix ? { suffix: f.suffix } : {}),
  };
}

export function NotificationSettings({ bucket }: { bucket: string }) {
  const data = useResource(
    async (signal): Promise<EventsData> => {
      const [config, targets] = await Promise.all([
        api.get<BucketNotification>(Api.bucket(bucket, '/notification'), undefined, signal),
        api.get<{ items: NotificationTarget[] }>('/notification-targets', undefined, signal),
      ]);
      return { config, targets: targets.items };
    },
    [bucket],
  );
  return (
    <Card title="Event notifications">
      <p className="muted">
        Each configuration sends the events it names, for keys with its prefix and suffix, to one target, in AWS's event
        message format. Targets are defined on the <Link to="notifications">Notifications</Link> page.
      </p>
      <Loaded resource={data} feature="Event notifications">
        {(d) => (
          <Editor
            key={JSON.stringify(d.config)}
            bucket={bucket}
            initial={d.config.rules}
            targets={d.targets}
            onSaved={data.reload}
          />
        )}
      </Loaded>
    </Card>
  );
}

function EventChoice({ form, index, set }: { form: RuleForm; index: number; set: (events: string[]) => void }) {
  const toggle = (name: string, on: boolean): void =>
    set(on ? [...form.events.filter((e) => e !== name), name] : form.events.filter((e) => e !== name));
  return (
    <div className="stack-sm" role="group" aria-label={`Configuration ${index + 1} events`}>
      {EVENT_GROUPS.map((g) => {
        const all = g.wildcard !== undefined && form.events.includes(g.wildcard);
        return (
          <div key={g.label} className="event-group" role="group" aria-label={`${g.label} events`}>
            <p className="event-group-label">{g.label}</p>
            <div className="checks">
              {g.wildcard ? (
                <Checkbox
                  label={`All (${g.wildcard})`}
                  checked={all}
                  onChange={(e) => toggle(g.wildcard ?? '', e.target.checked)}
                />
              ) : null}
              {g.events.map((name) => (
                <Checkbox
                  key={name}
                  label={name.split(':').pop() ?? name}
                  checked={all || form.events.includes(name)}
                  disabled={all}
                  onChange={(e) => toggle(name, e.target.checked)}
                />
              ))}
            </div>
          </div>
        );
      })}
    </div>
  );
}

function Editor(props: {
  bucket: string;
  initial: NotificationRuleView[];
  targets: NotificationTarget[];
  onSaved: () => void;
}) {
  const { bucket, initial, targets, onSaved } = props;
  const [forms, setForms] = useState<RuleForm[]>(initial.map(toForm));
  const { notify } = useToast();
  const set = (i: number, patch: Partial<RuleForm>): void =>
    setForms((all) => all.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const {
    run: save,
    busy,
    error,
  } = useAction(async () => {
    const rules = forms.map(toRule);
    if (rules.length === 0) await api.del(Api.bucket(bucket, '/notification'));
    else await api.put(Api.bucket(bucket, '/notification'), { rules });
    notify(rules.length === 0 ? 'Event notifications removed.' : 'Event notifications saved.');
    onSaved();
  });
  const options = (current: string) => [
    { value: '', label: 'Choose a target…' },
    ...targets.map((t) => ({ value: t.arn, label: `${t.id} (${TARGET_KIND_LABELS[t.kind]}): ${t.arn}` })),
    ...(current && !targets.some((t) => t.arn === current)
      ? [{ value: current, label: `${current} (no such target)` }]
      : []),
  ];
  return (
    <div className="stack">
      {targets.length === 0 ? (
        <p className="note note-info">
          No notification targets exist yet: add one on the <Link to="notifications">Notifications</Link> page first.
        </p>
      ) : null}
      {forms.length === 0 ? <Empty>No event notifications: changes to this bucket are not sent anywhere.</Empty> : null}
      {forms.map((f, i) => (
        <WriteFieldset key={i} legend={`Configuration ${i + 1}`} className="rule">
          <div className="form-row">
            <TextField
              label="Id"
              hint="Empty: one is generated."
              value={f.id}
              onChange={(e) => set(i, { id: e.target.value })}
              autoComplete="off"
            />
            <SelectField
              label="Target"
              value={f.arn}
              onChange={(e) => set(i, { arn: e.target.value })}
              options={options(f.arn)}
            />
          </div>
          <EventChoice form={f} index={i} set={(events) => set(i, { events })} />
          <div className="form-row">
            <TextField
              label="Key prefix"
              hint="Only keys starting with it (empty: every key)."
              value={f.prefix}
              onChange={(e) => set(i, { prefix: e.target.value })}
              autoComplete="off"
              spellCheck={false}
            />
            <TextField
              label="Key suffix"
              hint="Only keys ending with it, such as .jpg."
              value={f.suffix}
              onChange={(e) => set(i, { suffix: e.target.value })}
              autoComplete="off"
              spellCheck={false}
            />
          </div>
          <div>
            <Button variant="ghost" write onClick={() => setForms((all) => all.filter((_, j) => j !== i))}>
              Remove configuration {i + 1}
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
            setForms((all) => [
              ...all,
              { id: '', arn: targets[0]?.arn ?? '', events: [], prefix: '', suffix: '', kind: 'Queue' },
            ])
          }
        >
          Add configuration
        </Button>
        <Button variant="primary" write busy={busy} onClick={() => void save()}>
          Save event notifications
        </Button>
      </div>
    </div>
  );
}
