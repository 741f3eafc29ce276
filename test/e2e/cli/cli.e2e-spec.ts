import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { TAG_LIST } from '../../../src/pets/sql/pet-reads.sql.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
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

  it('should create the admin ADMIN_USERNAME names on an empty database: the CLI makes no first admin of its own', async () => {
    database = await createTestDatabase();
    const run = await runCli(
      ['create-admin', '--username', 'admin', '--password-stdin'],
      database,
      {
        stdin: `${PASSWORD}\n`,
      },
    );
    expect(run).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Created admin "admin"'),
    });
    expect(await loginStatus(database, 'admin')).toBe(200);
  });

  it('should create an admin whose password comes from ADMIN_PASSWORD', async () => {
    database = await createTestDatabase();
    const run = await runCli(['create-admin', '--username', 'ops.env'], database, {
      env: { ADMIN_PASSWORD: PASSWORD },
    });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('Created admin') });
    expect(await loginStatus(database, 'ops.env')).toBe(200);
  });

  it('should report a username taken in another case, as POST /v1/users names it, and exit 1', async () => {
    database = await createTestDatabase();
    const env = { ADMIN_PASSWORD: PASSWORD };
    expect((await runCli(['create-admin', '--username', 'ops'], database, { env })).code).toBe(0);

    const run = await runCli(
      ['create-admin', '--username', 'OPS', '--email', 'other@petstore.invalid'],
      database,
      { env },
    );
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('Cannot create admin: username is already taken\n');
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

/** The seed makes the first admin (its password printed once): the demo staff signs in. */
async function signInDemoStaff(t: TestApp): Promise<Record<string, string>> {
  const res = await t.http
    .post('/v1/auth/login')
    .send({ username: 'demo.staff', password: 'demo staff password' })
    .expect(200);
  return { Authorization: `Bearer ${res.body.token}` };
}

/** Timestamps of rows the seed did not make: the seed must leave them as they are. */
async function othersRows(t: TestApp) {
  const [category] = await t.dataSource.query<unknown[]>(
    "SELECT id, created_at::text, updated_at::text FROM categories WHERE name = 'Not the demo'",
  );
  const audit = await t.dataSource.query<unknown[]>(
    'SELECT id, action, occurred_at::text FROM audit_events ORDER BY id',
  );
  const subscriptions = await t.dataSource.query<unknown[]>(
    'SELECT id, enabled, created_at::text FROM webhook_subscriptions ORDER BY id',
  );
  return { category, audit, subscriptions };
}

/** A test app on `database` (closed before the seed opens it) that makes rows of its own. */
async function beforeSeeding(database: TestDatabase, make?: (t: TestApp) => Promise<void>) {
  const t = await createTestApp({}, { database });
  try {
    await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Not the demo', description: 'A category of the shop' })
      .expect(201);
    await make?.(t);
    return await othersRows(t);
  } finally {
    await t.close();
  }
}

async function afterSeeding(database: TestDatabase) {
  const t = await createTestApp({}, { database, signIn: false });
  try {
    // Read before the login, whose audit entry is this test's.
    const rows = await othersRows(t);
    const demoStaff = await t.http
      .post('/v1/auth/login')
      .send({ username: 'demo.staff', password: 'demo staff password' });
    return { rows, demoStaffLogin: demoStaff.status };
  } finally {
    await t.close();
  }
}

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
      // The pets' rows hold their tags as the app's writes would have written them.
      const [{ drifted, tagged }] = await t.dataSource.query<{ drifted: number; tagged: number }[]>(
        `SELECT count(*) FILTER (WHERE p.tag_list::text IS DISTINCT FROM l.tag_list::text)::int AS drifted,
                count(*) FILTER (WHERE l.tag_list::text <> '[]')::int AS tagged
           FROM pets p
           CROSS JOIN LATERAL (SELECT ${TAG_LIST} AS tag_list
                                 FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
                                WHERE pt.pet_id = p.id) l`,
      );
      expect({ drifted, tagged }).toEqual({ drifted: 0, tagged: 3000 });
    } finally {
      await t.close();
    }
  });

  /** Every search example of docs/api.md and the README. */
  const DOCUMENTED_SEARCHES = [
    'category=dogs&status=available&limit=10',
    'q=friendly%20labrdor&tag=vaccinated&minAge=1&maxAge=3',
    'tag=calm&sort=name&limit=50',
    'q=friendly%20labrador',
    'q=%22labrador%20puppy%22',
    'q=labrador%20-puppy',
    'q=poodle%20or%20beagle',
    'q=%22golden%20retriever%22%20-old%20or%20beagle',
    'q=puppies',
    'q=creme',
    'breed=labrador',
  ];

  it('should refuse the demo shop with NODE_ENV=production, touching nothing', async () => {
    database = await createTestDatabase();
    const before = await beforeSeeding(database);
    const run = await runCli([SEED], database, {
      env: {
        NODE_ENV: 'production',
        ALLOW_EMBEDDED_DATABASE: 'true',
        REGISTRATION: 'closed',
        MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('seed: the demo shop is refused with NODE_ENV=production');
    expect(run.stdout).not.toContain('demo staff password');
    expect(await afterSeeding(database)).toEqual({ rows: before, demoStaffLogin: 401 });
  }, 240_000);

  it('should refuse to load the demo into a database with webhook subscriptions, touching nothing', async () => {
    database = await createTestDatabase();
    const before = await beforeSeeding(database, async (t) => {
      await t.http
        .post('/v1/webhooks')
        .set(t.admin)
        .send({ url: 'https://8.8.8.8/hooks', events: ['pet.image_added'] })
        .expect(201);
    });
    expect(before.subscriptions).toHaveLength(1);
    const run = await runCli([SEED], database);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('seed: the database has 1 webhook subscription(s)');
    expect(await afterSeeding(database)).toEqual({ rows: before, demoStaffLogin: 401 });
  }, 240_000);

  // Bounded generously: on a loaded two-core machine the seed has taken over three minutes.
  it('should load a demo shop in which every documented search, the facets, a month of activity and photos show something, once', async () => {
    database = await createTestDatabase();
    // The shop's own category and audit entries: the seed back-dates only the rows it made.
    const before = await beforeSeeding(database);
    expect(before.audit.length).toBeGreaterThan(0);
    const run = await runCli([SEED], database);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('seed: done') });
    expect(run.stdout).toContain('demo.customer / "demo customer password" (customer)');

    const t = await createTestApp({}, { database, signIn: false });
    try {
      const staff = await signInDemoStaff(t);
      for (const query of DOCUMENTED_SEARCHES) {
        const res = await t.http.get(`/v1/pets?${query}`).set(staff);
        expect({ query, status: res.status }).toEqual({ query, status: 200 });
        expect({ query, found: res.body.pagination.total > 0 }).toEqual({ query, found: true });
      }
      const facets = await t.http.get('/v1/pets/facets?q=labrador').set(staff);
      expect(facets.body.tags.length).toBeGreaterThan(3);

      const activity = await t.http.get('/v1/stats/activity?days=30').set(staff);
      const days = activity.body.days as Record<string, number>[];
      const daysWith = (field: string) => days.filter((day) => day[field] > 0).length;
      expect(daysWith('petsCreated')).toBeGreaterThanOrEqual(28);
      expect(daysWith('petsSold')).toBeGreaterThanOrEqual(10);
      expect(daysWith('logins')).toBeGreaterThanOrEqual(28);
      expect(daysWith('failedLogins')).toBeGreaterThanOrEqual(5);
      expect(daysWith('deliveriesSucceeded')).toBeGreaterThanOrEqual(28);
      expect(daysWith('deliveriesFailed')).toBeGreaterThanOrEqual(3);

      const [first] = (await t.http.get('/v1/pets?sort=createdAt&limit=1').set(staff)).body.pets;
      const images = await t.http.get(`/v1/pets/${first.id}/images`).set(staff);
      expect(images.body.images).toHaveLength(1);
      // Kept in the pet: on the origin `npm start` serves (PORT's default), not on the
      // seed's own instance's port, or the console shows no photo.
      expect(new URL(first.photoUrls[0]).origin).toBe('http://localhost:3000');
      const photo = await t.http.get(new URL(images.body.images[0].url).pathname).set(staff);
      expect({ status: photo.status, type: photo.headers['content-type'] }).toEqual({
        status: 200,
        type: 'image/jpeg',
      });
      const history = await t.http.get(`/v1/pets/${first.id}/history`).set(staff);
      const events = history.body.events as { type: string }[];
      expect(events.map((event) => event.type)).toContain('pet.image_added');

      const customer = await t.http
        .post('/v1/auth/login')
        .send({ username: 'demo.customer', password: 'demo customer password' });
      expect(customer.status).toBe(200);
    } finally {
      await t.close();
    }

    const after = await afterSeeding(database);
    expect(after.rows.category).toEqual(before.category);
    expect(after.rows.audit.slice(0, before.audit.length)).toEqual(before.audit);

    const again = await runCli([SEED], database);
    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('seed: the demo shop is already loaded'),
    });
  }, 480_000);
});
