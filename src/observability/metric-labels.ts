// Label values for the HTTP metric families and request spans, each from a small closed set (SPEC "Metric
// families": every label has bounded cardinality; raw URLs, object keys and client addresses are never labels).

/** Where a request was answered: the S3 plane, the admin API, the console, /metrics, or no surface at all. */
export type Surface = 's3' | 'admin' | 'console' | 'metrics' | 'outside-mount' | 'unparsed';

/** The route class of a request that matched no route (admin 404s, requests outside MOUNT_PATH, unparsable ones). */
export const UNMATCHED = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH']);

/** The request method, or 'other' for any method outside the ones Store serves (Node accepts dozens). */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : 'other';
}

/** '2xx' ... '5xx' for a sent status; 'aborted' when the client left before any status was sent. */
export function statusClassLabel(status: number | undefined): string {
  if (status === undefined) return 'aborted';
  const hundreds = Math.floor(status / 100);
  return hundreds >= 1 && hundreds <= 5 ? `${hundreds}xx` : 'other';
}

/**
 * A route class comes from code, never from the request: an S3 operation name (`PutObject`) or an admin route
 * pattern (`/api/admin/keys/:id`). This guard keeps a future mistake (passing a raw path) from turning into an
 * unbounded label: anything longer than a pattern could be, or holding characters patterns never use, is 'other'.
 */
const ROUTE_CLASS = /^[A-Za-z0-9_/:*.-]{1,80}$/;

export function routeClassLabel(routeClass: string): string {
  return ROUTE_CLASS.test(routeClass) ? routeClass : 'other';
}

/** The bounded label set of one finished request, shared by the HTTP metrics and the request span. */
export interface RequestLabels {
  surface: Surface;
  method: string;
  route_class: string;
  status_class: string;
}

export function requestLabels(fields: {
  surface: Surface;
  method: string | undefined;
  routeClass: string;
  status: number | undefined;
}): RequestLabels {
  return {
    surface: fields.surface,
    method: methodLabel(fields.method),
    route_class: routeClassLabel(fields.routeClass),
    status_class: statusClassLabel(fields.status),
  };
}
