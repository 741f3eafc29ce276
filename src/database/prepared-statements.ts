import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/**
 * Runs the hot statements as named statements: each pooled connection has PostgreSQL parse
 * and plan one once, then only binds and runs it. For the pet reads, planning cost more than
 * running (see docs/performance.md). `DATABASE_PREPARED_STATEMENTS=false` turns it off.
 */
export class PreparedStatements {
  // Names come from the texts, as pg refuses one name for two texts. The texts are the SQL
  // builders' few shapes, so the map stays small.
  private readonly names = new Map<string, string>();

  constructor(private readonly enabled: boolean) {}

  query<T>(manager: EntityManager, sql: string, params: unknown[]): Promise<T> {
    if (!this.enabled) return manager.query<T>(sql, params);
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `petstore_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    // TypeORM hands its query to pg's client.query() as given, and pg takes a QueryConfig
    // there; TypeORM's type says string only.
    return manager.query<T>({ name, text: sql } as unknown as string, params);
  }
}
