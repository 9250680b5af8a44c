// Form controls. A control that changes something is marked `write`: for a read-only admin it is not rendered at
// all, and editable settings sit in a <WriteFieldset>, disabled for them (they still see every value).

import {
  useId,
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { useCanWrite } from '../hooks/use-session';
import { Icon, type IconName } from './icons';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  icon?: IconName;
  /** A control that changes server state: hidden from read-only admins. */
  write?: boolean;
  busy?: boolean;
};

export function Button({
  variant = 'secondary',
  icon,
  write,
  busy,
  children,
  className,
  type,
  disabled,
  ...rest
}: ButtonProps) {
  const canWrite = useCanWrite();
  if (write && !canWrite) return null;
  return (
    <button
      type={type ?? 'button'}
      className={`btn btn-${variant}${className ? ` ${className}` : ''}`}
      data-write={write ? '' : undefined}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {icon ? <Icon name={icon} /> : null}
      {children}
    </button>
  );
}

/** A fieldset of settings: disabled as a whole for a read-only admin. */
export function WriteFieldset({
  legend,
  children,
  className,
}: {
  legend?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const canWrite = useCanWrite();
  return (
    <fieldset className={`fieldset${className ? ` ${className}` : ''}`} disabled={!canWrite} data-write="">
      {legend ? <legend>{legend}</legend> : null}
      {children}
    </fieldset>
  );
}

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
  className?: string;
}

/** A label, a control, a hint and an error, wired together for assistive technology. */
export function Field({ label, hint, error, children, className }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id, describedBy)}
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="error-text" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type TextProps = InputHTMLAttributes<HTMLInputElement> & { label: ReactNode; hint?: ReactNode; error?: string };

export function TextField({ label, hint, error, className, ...rest }: TextProps) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(id, describedBy) => (
        <input
          id={id}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          className="input"
          {...rest}
        />
      )}
    </Field>
  );
}

type AreaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { label: ReactNode; hint?: ReactNode; error?: string };

export function TextArea({ label, hint, error, className, ...rest }: AreaProps) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(id, describedBy) => (
        <textarea
          id={id}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          className="input textarea"
          spellCheck={false}
          {...rest}
        />
      )}
    </Field>
  );
}

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: ReactNode;
  hint?: ReactNode;
  options: ReadonlyArray<{ value: string; label: string }>;
};

export function SelectField({ label, hint, options, className, ...rest }: SelectProps) {
  return (
    <Field label={label} hint={hint} className={className}>
      {(id, describedBy) => (
        <select id={id} aria-describedby={describedBy} className="input" {...rest}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

type CheckProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label: ReactNode; hint?: ReactNode };

export function Checkbox({ label, hint, className, ...rest }: CheckProps) {
  const id = useId();
  return (
    <div className={`check${className ? ` ${className}` : ''}`}>
      <input type="checkbox" id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}
