import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createTestApp } from '../support/test-app.js';

describe('Start-up (e2e)', () => {
  it('should refuse to start on an invalid variable, naming it', async () => {
    await expect(createTestApp({ DATABASE_POOL_MAX: 'many' })).rejects.toThrow(
      /DATABASE_POOL_MAX: .*integer/,
    );
  });

  // The embedded database lives in DATA_DIR: a restart finds the data and the applied
  // migrations where it left them.
  const embeddedOnly = process.env.DATABASE_URL ? it.skip : it;
  embeddedOnly(
    'should keep data in DATA_DIR across a restart of the embedded database',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'petstore-restart-'));
      try {
        const first = await createTestApp({ DATA_DIR: dataDir });
        const created = await first.http
          .post('/v1/categories')
          .set(first.admin)
          .send({ name: 'Kept' });
        await first.close();

        const second = await createTestApp({ DATA_DIR: dataDir });
        const res = await second.http.get(`/v1/categories/${created.body.id}`).set(second.admin);
        expect(res.body).toEqual(created.body);
        const applied: unknown[] = await second.dataSource.query('SELECT name FROM migrations');
        expect(applied).toHaveLength(second.dataSource.migrations.length);
        await second.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    // Two boots that each initialise a data directory from scratch.
    120_000,
  );
});
