// Modal dialogs on the native <dialog> element (focus is kept inside, Escape closes, the page behind is inert).

import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useAction } from '../hooks/use-action';
import { Button, TextField } from './controls';
import { ErrorNote } from './feedback';

interface DialogProps {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  /** Buttons at the bottom. */
  footer?: ReactNode;
  wide?: boolean;
  /** Renders the body as a form; Enter submits. */
  onSubmit?: (e: FormEvent) => void;
}

export function Dialog({ title, onClose, children, footer, wide, onSubmit }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const el = ref.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  const body = (
    <>
      <header className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="btn btn-ghost icon-only" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer ? <footer className="dialog-foot">{footer}</footer> : null}
    </>
  );
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {onSubmit ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit(e);
          }}
        >
          {body}
        </form>
      ) : (
        body
      )}
    </dialog>
  );
}

interface ConfirmProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** The person must type this (a bucket name, RESET) before the button works. */
  typeToConfirm?: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Are you sure?" with the action's own error shown in place if it fails. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  typeToConfirm,
  onConfirm,
  onClose,
}: ConfirmProps) {
  const [typed, setTyped] = useState('');
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  const {
    run: confirm,
    busy,
    error,
  } = useAction(async () => {
    await onConfirm();
    onClose();
  });
  const submit = async (): Promise<void> => {
    if (ready) await confirm();
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant={danger ? 'danger' : 'primary'} disabled={!ready} busy={busy} write>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {typeToConfirm !== undefined ? (
        <TextField
          label={
            <>
              Type <strong>{typeToConfirm}</strong> to confirm
            </>
          }
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          autoFocus
        />
      ) : null}
      {error ? <ErrorNote message={error} /> : null}
    </Dialog>
  );
}
