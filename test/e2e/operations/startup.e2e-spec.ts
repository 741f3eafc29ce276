import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { AppProcess } from '../../support/app-process.js';
import { createTestApp } from '../../support/test-app.js';
import { createTestDatabase } from '../../support/test-database.js';

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

  describe('its log (the built service)', () => {
    const messages = (app: AppProcess) => app.logs().map((line) => String(line.msg));

    it(
      'should end with the URLs and a generated admin password, and warn when ADMIN_PASSWORD comes too late',
      async () => {
        const database = await createTestDatabase();
        const env = { ...database.env, JWT_SECRET: database.jwtSecret, LOG_LEVEL: 'info' };
        try {
          const first = await AppProcess.start({ ...env, ADMIN_PASSWORD: undefined });
          expect(await first.stop()).toBe(0);
          const log = messages(first);
          const listening = log.findIndex((msg) => msg.startsWith('Listening on '));
          const url = first.url;
          expect(log[listening]).toBe(
            `Listening on ${url}: API ${url}/v1, console ${url}/console, docs ${url}/docs`,
          );
          // The password is the last line of start-up, after every framework line.
          const announced =
            /^==== First admin "admin" created with the generated password (\S+) - it is shown only this once; log in and change it ====$/;
          expect(log[listening + 1]).toMatch(announced);
          expect(log.slice(0, listening).join('\n')).toContain(
            'Nest application successfully started',
          );
          expect(log.filter((msg) => announced.test(msg))).toHaveLength(1);
          const password = announced.exec(log[listening + 1])![1];
          // A short start-up: Nest's line per module and per route waits for LOG_LEVEL=debug.
          expect(listening).toBeLessThan(8);
          const bookkeeping = ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'];
          expect(first.logs().filter((line) => bookkeeping.includes(String(line.context)))).toEqual(
            [],
          );

          const second = await AppProcess.start({ ...env, ADMIN_PASSWORD: 'a later password' });
          try {
            const login = (body: object) =>
              fetch(`${second.url}/v1/auth/login`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(body),
              });
            expect((await login({ username: 'admin', password })).status).toBe(200);
            expect((await login({ username: 'admin', password: 'a later password' })).status).toBe(
              401,
            );
          } finally {
            expect(await second.stop()).toBe(0);
          }
          const ignored = second
            .logs()
            .filter((line) => String(line.msg).startsWith('ADMIN_PASSWORD is ignored'));
          expect(ignored).toEqual([
            expect.objectContaining({
              level: 'warn',
              msg: 'ADMIN_PASSWORD is ignored: it sets the password of the first admin only, and an admin exists already; change a password with PUT /v1/users/{id}',
            }),
          ]);
          expect(messages(second).join('\n')).not.toContain('First admin');
        } finally {
          await database.drop();
        }
      },
      // Two starts of the built service.
      120_000,
    );
  });

  it('should say it listens on every interface when HOST=0.0.0.0, with localhost URLs to open, and map routes at debug', async () => {
    const database = await createTestDatabase();
    try {
      const app = await AppProcess.start({
        ...database.env,
        JWT_SECRET: database.jwtSecret,
        HOST: '0.0.0.0',
        LOG_LEVEL: 'debug',
      });
      expect(await app.stop()).toBe(0);
      const logs = app.logs();
      const port = app.port;
      expect(logs).toContainEqual(
        expect.objectContaining({
          level: 'info',
          context: 'Bootstrap',
          msg: `Listening on http://0.0.0.0:${port} (every interface): API http://localhost:${port}/v1, console http://localhost:${port}/console, docs http://localhost:${port}/docs`,
        }),
      );
      // Routes outside /v1 are mapped where they are served, and nothing says otherwise but
      // the RoutesResolver's controller headings (see app-logger.service.ts).
      const mapped = (path: string) =>
        expect.objectContaining({
          level: 'debug',
          context: 'RouterExplorer',
          msg: `Mapped {${path}, GET} route`,
        });
      expect(logs).toContainEqual(mapped('/metrics'));
      expect(logs).toContainEqual(mapped('/console'));
      expect(
        logs.filter(
          (line) =>
            line.context !== 'RoutesResolver' &&
            /\/v1\/(metrics|health|docs|console|media)/.test(String(line.msg)),
        ),
      ).toEqual([]);
    } finally {
      await database.drop();
    }
  }, 60_000);

  it("should serve the API and stop cleanly under the start script's node flags", async () => {
    const database = await createTestDatabase();
    try {
      const app = await AppProcess.start(
        { ...database.env, JWT_SECRET: database.jwtSecret },
        'start',
      );
      try {
        expect((await fetch(`${app.url}/health/ready`)).status).toBe(200);
        expect((await app.fetch('/v1/pets')).status).toBe(200);
      } finally {
        expect(await app.stop()).toBe(0);
      }
    } finally {
      await database.drop();
    }
  }, 60_000);

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
