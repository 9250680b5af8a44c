// Copying to the clipboard (a secret, a share link), with a fallback for insecure contexts where the Clipboard API
// is missing (a console reached over plain http on a LAN address).

import { useState } from 'react';
import { Icon } from './icons';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  return ok;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="btn btn-secondary"
      onClick={() => {
        void copyText(text).then((ok) => {
          setState(ok ? 'copied' : 'failed');
          setTimeout(() => setState('idle'), 2000);
        });
      }}
    >
      <Icon name="copy" />
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy' : label}
      </span>
    </button>
  );
}

/** A value shown once (a secret access key, a temporary password) with a copy button and a warning. */
export function ShownOnce({ label, value, copyLabel }: { label: string; value: string; copyLabel?: string }) {
  return (
    <div className="shown-once">
      <p className="note note-warn">
        This is shown only once. Copy it now and keep it somewhere safe: it cannot be shown again.
      </p>
      <div className="secret-row">
        <label className="secret-label">
          <span>{label}</span>
          <input className="input mono" readOnly value={value} onFocus={(e) => e.target.select()} />
        </label>
        <CopyButton text={value} label={copyLabel} />
      </div>
    </div>
  );
}
