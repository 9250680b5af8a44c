// The error for a data directory Store must not use (held by another process, a bad key file, a schema from a newer
// release): `store serve` prints it as a refusal to start (exit 73) instead of a crash. Its own module so the
// database layer can throw it without importing data-dir.ts, which imports the database layer.

export class DataDirError extends Error {
  override name = 'DataDirError';
}
