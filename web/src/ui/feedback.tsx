// Status and feedback: toasts (announced politely), errors in place, loading and empty states, and the note a page
// shows for a feature this server does not have.

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { describeError } from '../api/errors';
import type { Resource } from '../hooks/use-resource';

interface Toast {
  id: number;
  message: string;
  kind: 'ok' | 'error';
}
interface ToastApi {
  notify: (message: string, kind?: 'ok' | 'error') => void;
}

const ToastContext = createContext<ToastApi>({ notify: () => undefined });

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const notify = useCallback((message: string, kind: 'ok' | 'error' = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-3), { id, message, kind }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), kind === 'error' ? 8000 : 4000);
  }, []);
  const value = useMemo(() => ({ notify }), [notify]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`}>
            {t.message}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  return useContext(ToastContext);
}

export function ErrorNote({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="note note-error" role="alert">
      <span>{message}</span>
      {onRetry ? (
        <button type="button" className="btn btn-ghost" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

export function NotAvailable({ feature }: { feature: string }) {
  return (
    <div className="note note-info">
      <strong>{feature}: not available on this server.</strong> This server's admin API has no such endpoint (it may be
      an older build).
    </div>
  );
}

/**
 * Renders a resource: loading, its error (or the not-available note), or the children with the data.
 */
export function Loaded<T>({
  resource,
  feature,
  children,
}: {
  resource: Resource<T>;
  feature: string;
  children: (data: T) => ReactNode;
}) {
  if (resource.notAvailable) return <NotAvailable feature={feature} />;
  if (resource.error !== undefined && resource.data === undefined)
    return <ErrorNote message={describeError(resource.error)} onRetry={resource.reload} />;
  if (resource.data === undefined) return <Loading />;
  return <>{children(resource.data)}</>;
}
