import { readdir } from 'node:fs/promises';
import type { MigrationInterface } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

// `<timestamp>-<Name>.ts` in the sources (tests run them through ts-jest), `.js` once built;
// never `.d.ts` nor `.js.map`.
const MIGRATION_FILE = /^\d+-\w+\.(?:js|ts)$/;
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/**
 * Every migration class in `migrations/`, in file-name (timestamp) order. A new migration is
 * found by its file name: no list to add it to. Imported by this module rather than by
 * TypeORM's own glob loader, so that under Jest they come through ts-jest like any source.
 */
export async function loadMigrations(): Promise<MigrationClass[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const modules = await Promise.all(
    files.map((name) => import(new URL(name, MIGRATIONS_DIR).href) as Promise<object>),
  );
  return modules.flatMap((exported) =>
    Object.values(exported).filter((value): value is MigrationClass => typeof value === 'function'),
  );
}
