import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/*
 * The database's own code, its functions and triggers, has one current definition:
 * src/database/schema/*.sql (docs/data-access.md, "The database's own code"). Migrations are
 * its history. A fresh database migrated to the end holds exactly what those files define:
 * a definition edited without a migration that brings it to databases, or a function or
 * trigger a migration made that the files leave out, fails here.
 */
describe('The database’s own code', () => {
  let harness: RepositoryHarness;
  const schemaDir = new URL('../../../src/database/schema/', import.meta.url);

  /** Every function and trigger of the schema by name, as PostgreSQL states it. */
  const definitions = async () => ({
    functions: Object.fromEntries(
      (
        await harness.query<{ name: string; definition: string }>(`
          SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name,
                 pg_get_functiondef(p.oid) AS definition
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'public'
             -- The extensions' own (pg_trgm, unaccent) are theirs, not the schema's.
             AND NOT EXISTS (SELECT 1 FROM pg_depend d
                              WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                AND d.deptype = 'e')
           ORDER BY 1`)
      ).map(({ name, definition }) => [name, definition]),
    ),
    triggers: Object.fromEntries(
      (
        await harness.query<{ name: string; definition: string }>(`
          SELECT t.tgname || ' ON ' || c.relname AS name, pg_get_triggerdef(t.oid) AS definition
            FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
           -- Foreign keys' triggers are the constraints'.
           WHERE n.nspname = 'public' AND NOT t.tgisinternal
           ORDER BY 1`)
      ).map(({ name, definition }) => [name, definition]),
    ),
  });

  /**
   * The definitions of the files alone: every function dropped (their triggers with them),
   * the files applied, read, and all of it rolled back.
   */
  const currentDefinitions = async () => {
    const files = (await readdir(schemaDir)).filter((name) => name.endsWith('.sql')).sort();
    const sources = await Promise.all(
      files.map((name) => readFile(new URL(name, schemaDir), 'utf8')),
    );
    let current: Awaited<ReturnType<typeof definitions>> | undefined;
    const rollBack = new Error('roll back');
    await harness
      .transaction(async () => {
        for (const name of Object.keys((await definitions()).functions)) {
          await harness.query(`DROP FUNCTION ${name} CASCADE`);
        }
        for (const source of sources) await harness.query(source);
        current = await definitions();
        throw rollBack;
      })
      .catch((error: unknown) => {
        if (error !== rollBack) throw error;
      });
    return current!;
  };

  beforeAll(async () => {
    harness = await createRepositoryHarness([]);
  });
  afterAll(() => harness?.close());

  it('should hold after the migrations exactly the functions and triggers src/database/schema defines', async () => {
    const migrated = await definitions();

    const current = await currentDefinitions();

    expect(migrated).toEqual(current);
    expect(Object.keys(migrated.functions).length).toBeGreaterThan(0);
    expect(Object.keys(migrated.triggers).length).toBeGreaterThan(0);
  });
});
