import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { AppProcess } from '../support/app-process.js';
import { createTestApp } from '../support/test-app.js';

const STRONG_SECRET = randomBytes(32).toString('base64url');

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

  describe('in production (the built service)', () => {
    let dataDir: string;
    beforeEach(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'petstore-production-'));
    });
    afterEach(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('should refuse to run on the embedded database, before opening it, unless allowed', async () => {
      const { code, lines } = await AppProcess.failedStart({
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        JWT_SECRET: STRONG_SECRET,
      });
      expect(code).toBe(1);
      expect(lines.join('\n')).toMatch(
        /Start-up failed: Invalid environment configuration:\\n {2}DATABASE_URL: is required when NODE_ENV=production.*set ALLOW_EMBEDDED_DATABASE=true/,
      );
      expect(existsSync(join(dataDir, 'pgdata'))).toBe(false);
    });

    it(
      'should run on the embedded database when ALLOW_EMBEDDED_DATABASE=true',
      async () => {
        const app = await AppProcess.start({
          NODE_ENV: 'production',
          ALLOW_EMBEDDED_DATABASE: 'true',
          DATA_DIR: dataDir,
          JWT_SECRET: STRONG_SECRET,
        });
        try {
          expect((await fetch(`${app.url}/health/ready`)).status).toBe(200);
        } finally {
          expect(await app.stop()).toBe(0);
        }
      },
      // A fresh embedded data directory is initialised first.
      120_000,
    );

    it.each([
      ['one repeated character', 'x'.repeat(64)],
      ['a repeated phrase', 'my-secret-'.repeat(5)],
    ])('should refuse a JWT_SECRET of %s', async (_, secret) => {
      const { code, lines } = await AppProcess.failedStart({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unused',
        DATA_DIR: dataDir,
        JWT_SECRET: secret,
      });
      expect(code).toBe(1);
      expect(lines.join('\n')).toMatch(/JWT_SECRET: is too predictable/);
      expect(lines.join('\n')).not.toContain(secret);
    });
  });
});
