import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createTestApp } from '../../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const CLI = resolve(import.meta.dirname, '../../../dist/cli/cli.js');
const SEED = resolve(import.meta.dirname, '../../../dist/cli/seed.js');
const PASSWORD = 'a password for ops only';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A built script (`npm run cli -- …` after its build step: the CLI by default) on a test database. */
function runCli(
  args: string[],
  database: TestDatabase,
  { env = {}, stdin }: { env?: Record<string, string>; stdin?: string } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, args[0] === SEED ? args : [CLI, ...args], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      JWT_SECRET: database.jwtSecret,
      ...database.env,
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

describe('CLI create-admin (e2e)', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  const loginStatus = async (db: TestDatabase, username: string) => {
    const t = await createTestApp({}, { database: db, signIn: false });
    try {
      const res = await t.http.post('/v1/auth/login').send({ username, password: PASSWORD });
      return res.status;
    } finally {
      await t.close();
    }
  };

  it('should refuse a password on the command line, before touching the database', async () => {
    database = await createTestDatabase();
    const run = await runCli(
      ['create-admin', '--username', 'ops', '--password', PASSWORD],
      database,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('a password on the command line is refused');
    expect(run.stderr).toContain('--password-stdin');
    expect(run.stdout).not.toContain('Created admin');
  });

  it('should create an admin whose password comes from standard input', async () => {
    database = await createTestDatabase();
    const run = await runCli(['create-admin', '--username', 'ops', '--password-stdin'], database, {
      stdin: `${PASSWORD}\n`,
    });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('Created admin "ops"') });
    expect(await loginStatus(database, 'ops')).toBe(200);
  });

  it('should create an admin whose password comes from ADMIN_PASSWORD', async () => {
    database = await createTestDatabase();
    const run = await runCli(['create-admin', '--username', 'ops.env'], database, {
      env: { ADMIN_PASSWORD: PASSWORD },
    });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('Created admin') });
    expect(await loginStatus(database, 'ops.env')).toBe(200);
  });

  it('should report an invalid variable without a stack trace and exit 1, before Nest starts', async () => {
    database = await createTestDatabase();
    const run = await runCli(['create-admin', '--username', 'ops'], database, {
      env: { ADMIN_PASSWORD: PASSWORD, PORT: 'not-a-port' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: Invalid environment configuration:\n  PORT: PORT must be an integer number\n',
    );
    expect(run.stdout).toBe('');
  });

  it('should report a database it cannot reach and exit 1', async () => {
    database = await createTestDatabase();
    const run = await runCli(['create-admin', '--username', 'ops'], database, {
      env: { ADMIN_PASSWORD: PASSWORD, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/petstore' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: Database unreachable at 127\.0\.0\.1:1\/petstore /m);
    expect(run.stdout).toBe('');
  });
});

describe('npm run seed (e2e)', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('should load --pets N synthetic pets, saying how far it has got, on the default database too', async () => {
    database = await createTestDatabase();
    const run = await runCli([SEED, '--pets', '3000'], database);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('seed: done') });
    expect(run.stdout).toContain('seed: 3000 / 3000 pets');
    const t = await createTestApp({}, { database });
    try {
      const res = await t.http.get('/v1/pets?q=Mixbreed20&limit=1').set(t.admin);
      expect(res.status).toBe(200);
      expect(res.body.pagination.total).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
