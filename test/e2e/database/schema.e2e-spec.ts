import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../../support/test-app.js';

describe('Database schema (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('should have applied every migration at start-up', async () => {
    expect(await t.dataSource.showMigrations()).toBe(false);
  });

  it('should match the entities exactly, so no migration is missing', async () => {
    const pending = await t.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });
});
