import type { DataSource } from 'typeorm';

/** What the refused statements fail with. */
export const REFUSED = 'refused by the test';

/**
 * Makes every INSERT into `table` fail with REFUSED, by a trigger of the test's own, until the
 * function it returns is called: a real failure inside the app's statements.
 */
export async function refuseInserts(
  dataSource: DataSource,
  table: string,
): Promise<() => Promise<void>> {
  const name = `test_refuse_${table}`;
  await dataSource.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql
       AS $$ BEGIN RAISE EXCEPTION '${REFUSED}'; END $$`,
  );
  await dataSource.query(
    `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await dataSource.query(`DROP TRIGGER ${name} ON ${table}`);
    await dataSource.query(`DROP FUNCTION ${name}()`);
  };
}
