// Where the console and the admin API live, from the console's own base URL (the <base> element the server points
// at MOUNT_PATH/admin/): nothing is hard-coded, so one build works under any MOUNT_PATH.

export interface ConsolePaths {
  /** The console's base path, with a trailing slash: '/admin/' or '/storage/admin/'. */
  consoleBase: string;
  /** MOUNT_PATH: '' or '/storage'. */
  mount: string;
  /** The admin API: '/api/admin' or '/storage/api/admin'. */
  apiBase: string;
}

/** The paths for a console whose base URL path is `basePath` (document.baseURI's pathname). */
export function consolePaths(basePath: string): ConsolePaths {
  const withSlash = basePath.endsWith('/') ? basePath : `${basePath}/`;
  const match = /^(.*)\/admin\/$/.exec(withSlash);
  const mount = match ? (match[1] ?? '') : '';
  return { consoleBase: `${mount}/admin/`, mount, apiBase: `${mount}/api/admin` };
}

/** The console route of a location path: the part after the console base, without a leading slash ('' = home). */
export function routeOf(pathname: string, consoleBase: string): string {
  const base = consoleBase.slice(0, -1); // without the trailing slash
  if (pathname === base) return '';
  if (!pathname.startsWith(consoleBase)) return '';
  return pathname.slice(consoleBase.length).replace(/\/+$/, '');
}
