import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

const names = new Map<string, string>();

/**
 * Runs `sql` as a named statement: each pooled connection has PostgreSQL parse and plan it
 * once, then only binds and runs it. For the pet reads, planning cost more than running
 * (see docs/performance.md). The name comes from the text, as pg refuses one name for two
 * texts; the texts are few (the SQL builders' shapes), so the map stays small.
 */
export function preparedQuery<T>(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T> {
  let name = names.get(sql);
  if (name === undefined) {
    name = `petstore_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  // TypeORM hands its query to pg's client.query() as given, and pg takes a QueryConfig
  // there; TypeORM's type says string only.
  return manager.query<T>({ name, text: sql } as unknown as string, params);
}
