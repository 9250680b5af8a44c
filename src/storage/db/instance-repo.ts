// Instance-wide facts (table instance: name -> value), for example what the environment said at the last boot.

import type { Db } from './database.js';

export class InstanceRepo {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], string>('SELECT value FROM instance WHERE name = ?').pluck();
    this.setStmt = db.prepare<[string, string]>(
      'INSERT INTO instance (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  get(name: string): string | undefined {
    return this.getStmt.get(name) as string | undefined;
  }

  set(name: string, value: string): void {
    this.setStmt.run(name, value);
  }
}
