// A key/value tag editor (bucket tags, object tags): rows of two fields, add and remove, saved as a whole.

import { useState } from 'react';
import type { Tag } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useCanWrite } from '../hooks/use-session';
import { Button, WriteFieldset } from './controls';
import { ErrorNote, useToast } from './feedback';

interface Props {
  initial: Tag[];
  max: number;
  /** Saves the whole set; an empty set removes the tags. */
  onSave: (tags: Tag[]) => Promise<void>;
  label: string;
}

export function TagEditor({ initial, max, onSave, label }: Props) {
  const [tags, setTags] = useState<Tag[]>(initial);
  const { notify } = useToast();
  const canWrite = useCanWrite();
  const set = (i: number, patch: Partial<Tag>): void =>
    setTags((t) => t.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const {
    run: put,
    busy,
    error,
    setError,
  } = useAction(async (clean: Tag[]) => {
    await onSave(clean);
    setTags(clean);
    notify('Tags saved.');
  });
  const save = async (): Promise<void> => {
    const clean = tags.filter((t) => t.key.trim() !== '');
    const keys = new Set(clean.map((t) => t.key));
    if (keys.size !== clean.length) {
      setError('Each tag key may appear only once.');
      return;
    }
    await put(clean);
  };
  return (
    <div className="stack">
      {tags.length === 0 && !canWrite ? <p className="muted">No tags.</p> : null}
      <WriteFieldset legend={<span className="visually-hidden">{label}</span>}>
        {tags.map((t, i) => (
          <div className="tag-row" key={i}>
            <label>
              <span className="visually-hidden">Tag {i + 1} key</span>
              <input
                className="input"
                placeholder="Key"
                value={t.key}
                maxLength={128}
                onChange={(e) => set(i, { key: e.target.value })}
              />
            </label>
            <label>
              <span className="visually-hidden">Tag {i + 1} value</span>
              <input
                className="input"
                placeholder="Value"
                value={t.value}
                maxLength={256}
                onChange={(e) => set(i, { value: e.target.value })}
              />
            </label>
            <Button
              variant="ghost"
              write
              aria-label={`Remove tag ${i + 1}`}
              onClick={() => setTags((x) => x.filter((_, j) => j !== i))}
            >
              Remove
            </Button>
          </div>
        ))}
      </WriteFieldset>
      {error ? <ErrorNote message={error} /> : null}
      <div className="actions">
        <Button
          icon="plus"
          write
          disabled={tags.length >= max}
          onClick={() => setTags((t) => [...t, { key: '', value: '' }])}
        >
          Add tag
        </Button>
        <Button variant="primary" write busy={busy} onClick={() => void save()}>
          Save tags
        </Button>
      </div>
      <p className="hint">At most {max} tags.</p>
    </div>
  );
}
