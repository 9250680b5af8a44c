// A small history router for the console: routes are paths relative to the console base (MOUNT_PATH/admin/),
// state that belongs in the URL (bucket, prefix, filters) is in the path or the query, and every route survives a
// hard refresh because the server answers index.html for any path under /admin.

import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';
import { paths } from './api';
import { routeOf } from './lib/base-path';

const listeners = new Set<() => void>();
const emit = (): void => {
  for (const l of listeners) l();
};
window.addEventListener('popstate', emit);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = (): string => `${location.pathname}${location.search}`;

/** The URL of a console route ('buckets/photos?prefix=a%2F'). */
export function href(to: string): string {
  return `${paths.consoleBase}${to}`;
}

/** Goes to a console route (pushes a history entry unless `replace`). */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = href(to);
  if (url === snapshot()) return;
  const samePage = new URL(url, location.origin).pathname === location.pathname;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  if (!samePage) window.scrollTo(0, 0);
  emit();
}

export interface Location {
  /** The route without the console base and without slashes at the ends: '' for the dashboard. */
  route: string;
  query: URLSearchParams;
}

/** The current console location; re-renders on navigation. */
export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, location.origin);
  return { route: routeOf(url.pathname, paths.consoleBase), query: url.searchParams };
}

/** Replaces the query of the current route (filters, prefix), keeping the history entry. */
export function setQuery(values: Record<string, string | undefined>, opts: { push?: boolean } = {}): void {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  const to = `${routeOf(url.pathname, paths.consoleBase)}${url.search}`;
  navigate(to, { replace: !opts.push });
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children: ReactNode };

/** A link to a console route: a real <a href> (open in a new tab works), handled in-page on a plain click. */
export function Link({ to, children, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={href(to)} onClick={handle} {...rest}>
      {children}
    </a>
  );
}

/** The route for the object browser of a bucket at a prefix (in the versions view with `versions`). */
export function browseRoute(bucket: string, prefix = '', opts: { versions?: boolean } = {}): string {
  const query = new URLSearchParams();
  if (prefix) query.set('prefix', prefix);
  if (opts.versions) query.set('view', 'versions');
  const search = query.toString();
  return `buckets/${encodeURIComponent(bucket)}/browse${search ? `?${search}` : ''}`;
}
