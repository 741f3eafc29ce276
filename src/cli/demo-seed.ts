import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppModule } from '../app.module.js';
import { configureApp } from '../app.setup.js';
import { AdminBootstrapService } from '../users/accounts/admin-bootstrap.service.js';
import { loadEnv } from '../config/load-env.js';
import { UsersService } from '../users/users.service.js';
import {
  DEMO_CATEGORIES,
  DEMO_CUSTOMER,
  DEMO_DAYS,
  DEMO_PETS,
  DEMO_STAFF,
  colourOf,
  demoPet,
} from './demo-catalogue.js';
import { demoPhoto } from './demo-photo.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SETTLE_DEADLINE_MS = 120_000;

/**
 * What the seed's own instance of the service needs: its own loopback port, a receiver on
 * loopback for the demo webhook, retries and polls fast enough to settle in seconds, and
 * limits that a few hundred requests in a row do not reach. Set before the configuration is
 * read; the database settings are the caller's.
 */
const SEED_INSTANCE_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOKS_RETRY_BASE_MS: '10',
  OUTBOX_POLL_INTERVAL_MS: '50',
  RATE_LIMIT_USER_PER_MINUTE: '100000',
  RATE_LIMIT_USER_PER_HOUR: '100000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
  RATE_LIMIT_ANONYMOUS_PER_HOUR: '100000',
  RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE: '100000',
};

/** A database the demo must not be loaded into; the seed says why and exits 1. */
export class DemoSeedRefusedError extends Error {}

class Api {
  constructor(
    private readonly base: string,
    private token = '',
  ) {}

  as(token: string): Api {
    return new Api(this.base, token);
  }

  async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const form = body instanceof FormData;
    const res = await fetch(`${this.base}/v1${path}`, {
      method,
      headers: {
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
        ...(body === undefined || form ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok && !(path === '/auth/login' && res.status === 401)) {
      throw new Error(`seed: ${method} /v1${path} answered ${res.status}: ${text}`);
    }
    return (text ? JSON.parse(text) : {}) as T;
  }
}

/**
 * The demo shop, made through the service's own HTTP API by an instance of the service
 * started in this process, so that every pet's history, the audit log, the outbox and the
 * webhook deliveries are what the service writes. The one thing the API cannot do is let a
 * month pass: once everything has settled, the timestamps are moved back over the past
 * `DEMO_DAYS` days, each pet's events in their order, in one transaction (`backdate`).
 * Idempotent: skipped when the demo staff account exists. Every row it changes is one it made.
 * Refused with NODE_ENV=production (its admin's password is in the README), and on a database
 * with webhook subscriptions (its instance delivers to private addresses).
 */
export async function seedDemo(log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const progress = (step: string) =>
    log(`seed: ${step} (${Math.round((Date.now() - started) / 1000)} s)`);
  const env = loadEnv();
  if (env.NODE_ENV === 'production') {
    throw new DemoSeedRefusedError(
      'the demo shop is refused with NODE_ENV=production: its admin password is published in the README',
    );
  }
  Object.assign(process.env, SEED_INSTANCE_ENV, {
    // Its own rate-limit counters: a few hundred requests in a row stay out of the service's.
    REDIS_KEY_PREFIX: `${env.REDIS_KEY_PREFIX}demo-seed:`,
    // Photo URLs on the origin the service is reached at later, not this instance's port.
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
  });
  const receiver = await startReceiver();
  try {
    await withSeedInstance(log, progress, receiver);
  } finally {
    await new Promise((done) => receiver.close(done));
  }
}

/** The seed's instance of the service, and the demo made through its API. */
async function withSeedInstance(
  log: (line: string) => void,
  progress: (step: string) => void,
  receiver: Server,
): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  configureApp(app);
  try {
    // Checked before listen(), which starts the job worker and so the webhook deliveries.
    const dataSource = app.get(DataSource);
    const [known] = await dataSource.query<unknown[]>('SELECT 1 FROM users WHERE username = $1', [
      DEMO_STAFF.username,
    ]);
    if (known) {
      log('seed: the demo shop is already loaded');
      return;
    }
    const [{ subscriptions }] = await dataSource.query<{ subscriptions: number }[]>(
      'SELECT count(*)::int AS subscriptions FROM webhook_subscriptions',
    );
    if (subscriptions > 0) {
      throw new DemoSeedRefusedError(
        `the database has ${subscriptions} webhook subscription(s): the demo shop is loaded only ` +
          'into a database without any, since its instance delivers to private addresses',
      );
    }
    const firstAudit = await maxId(dataSource, 'audit_events');
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    await app.get(UsersService).create({
      username: DEMO_STAFF.username,
      email: 'staff@petstore.example',
      password: DEMO_STAFF.password,
      role: 'admin',
      firstName: 'Demo',
      lastName: 'Staff',
    });
    const anonymous = new Api(`http://127.0.0.1:${port}`);
    const staff = anonymous.as(await login(anonymous, DEMO_STAFF));
    await staff.send('POST', '/users', {
      username: DEMO_CUSTOMER.username,
      email: 'customer@petstore.example',
      password: DEMO_CUSTOMER.password,
      role: 'customer',
      firstName: 'Ada',
      lastName: 'Customer',
    });
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const webhooks = [
      await staff.send<{ id: number }>('POST', '/webhooks', {
        url: `${receiverUrl}/display`,
        events: ['pet.created', 'pet.updated', 'pet.status_changed', 'pet.image_added'],
        description: 'The shop window display (demo)',
      }),
      await staff.send<{ id: number }>('POST', '/webhooks', {
        url: `${receiverUrl}/photo-archive`,
        events: ['pet.image_added'],
        description: 'The photo archive (demo), which refuses one photo in four',
      }),
    ];
    const { categoryIds, created } = await categories(staff);
    const petIds: number[] = [];
    for (let i = 0; i < DEMO_PETS; i += 1) {
      petIds.push(await addPet(staff, i, categoryIds));
      if ((i + 1) % 100 === 0) progress(`${i + 1} / ${DEMO_PETS} demo pets`);
    }
    const auditMark = await maxId(dataSource, 'audit_events');
    progress('a month of sign-ins');
    await monthOfLogins(anonymous);
    progress('webhook deliveries');
    const webhookIds = webhooks.map(({ id }) => id);
    await settleDeliveries(dataSource, webhookIds);
    // The receiver goes with this process: later events would only fail.
    for (const id of webhookIds) await staff.send('PUT', `/webhooks/${id}`, { enabled: false });
    progress('back-dating over the month');
    await backdate(dataSource, {
      petIds,
      categoryIds: created,
      webhookIds,
      audit: { first: firstAudit, mark: auditMark },
    });
    log(
      `seed: demo shop: ${DEMO_PETS} pets, a month of history; sign in as ` +
        `${DEMO_STAFF.username} / "${DEMO_STAFF.password}" (admin) or ` +
        `${DEMO_CUSTOMER.username} / "${DEMO_CUSTOMER.password}" (customer)`,
    );
  } finally {
    await app.close();
    app.get(AdminBootstrapService).announceGeneratedPassword();
  }
}

async function login(api: Api, who: { username: string; password: string }): Promise<string> {
  const { token } = await api.send<{ token: string }>('POST', '/auth/login', who);
  return token;
}

/** The demo's categories by name, made where missing (an earlier seed made some); the made ones. */
async function categories(
  staff: Api,
): Promise<{ categoryIds: Map<string, number>; created: number[] }> {
  const { categories: existing } = await staff.send<{ categories: { id: number; name: string }[] }>(
    'GET',
    '/categories',
  );
  const categoryIds = new Map(existing.map((c) => [c.name, c.id]));
  const created: number[] = [];
  for (const { name, description } of DEMO_CATEGORIES) {
    if (categoryIds.has(name)) continue;
    const { id } = await staff.send<{ id: number }>('POST', '/categories', { name, description });
    categoryIds.set(name, id);
    created.push(id);
  }
  return { categoryIds, created };
}

async function addPet(staff: Api, i: number, categoryIds: Map<string, number>): Promise<number> {
  const pet = demoPet(i);
  const { id } = await staff.send<{ id: number }>('POST', '/pets', {
    name: pet.name,
    categoryId: categoryIds.get(pet.category),
    status: 'available',
    age: pet.age,
    breed: pet.breed,
    description: pet.description,
    tags: pet.tags,
  });
  if (pet.photo) {
    const form = new FormData();
    const photo = await demoPhoto(i, colourOf(pet.category));
    form.append(
      'image',
      new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }),
      `${pet.name}.jpg`,
    );
    form.append('description', `${pet.name} at the shop`);
    await staff.send('POST', `/pets/${id}/upload-image`, form);
  }
  if (pet.edited) {
    await staff.send('PUT', `/pets/${id}`, {
      description: `${pet.description} Groomed and ready to meet you.`,
    });
  }
  for (const status of pet.moves) await staff.send('PUT', `/pets/${id}`, { status });
  return id;
}

/**
 * Staff and customer sign-ins, one or two a day, each ended by a logout, and a failed one
 * (a mistyped username) every fourth day; `backdate` spreads them over the month in order.
 */
async function monthOfLogins(anonymous: Api): Promise<void> {
  for (let day = 0; day < DEMO_DAYS; day += 1) {
    if (day % 4 === 1) {
      await anonymous.send('POST', '/auth/login', { username: 'demo.staf', password: 'wrong' });
    }
    for (let n = 0; n < 1 + (day % 2); n += 1) {
      const who = n % 2 === 0 ? DEMO_STAFF : DEMO_CUSTOMER;
      const { refreshToken } = await anonymous.send<{ refreshToken: string }>(
        'POST',
        '/auth/login',
        who,
      );
      await anonymous.send('POST', '/auth/logout', { refreshToken });
    }
  }
}

/**
 * The demo webhooks' receiver: the display takes everything (204); the photo archive refuses
 * (500) the photos of one pet in four, counted in the order they come.
 */
async function startReceiver(): Promise<Server> {
  const archived = new Map<number, boolean>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const petId = (JSON.parse(body) as { data: { id: number } }).data.id;
      if (req.url !== '/photo-archive') return void res.writeHead(204).end();
      if (!archived.has(petId)) archived.set(petId, archived.size % 4 !== 3);
      res.writeHead(archived.get(petId) ? 204 : 500).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

async function maxId(dataSource: DataSource, table: 'audit_events'): Promise<number> {
  const [{ max }] = await dataSource.query<{ max: number }[]>(
    `SELECT COALESCE(max(id), 0) AS max FROM ${table}`,
  );
  return max;
}

/**
 * Waits until every event is published and every demo delivery attempted. A refused delivery
 * is retried for a day before it is marked failed: its first attempt is moved a day back, so
 * that its job's next attempt, still refused, is its last.
 */
async function settleDeliveries(dataSource: DataSource, webhookIds: number[]): Promise<void> {
  await until(dataSource, async () => {
    const [row] = await dataSource.query<{ unpublished: number; waiting: number }[]>(
      `SELECT (SELECT count(*) FROM outbox_messages
                WHERE consumer = 'webhook-fan-out' AND failed_at IS NULL) AS unpublished,
              (SELECT count(*) FROM webhook_deliveries
                WHERE status = 'pending' AND first_attempt_at IS NULL
                  AND subscription_id = ANY($1)) AS waiting`,
      [webhookIds],
    );
    return row.unpublished === 0 && row.waiting === 0;
  });
  await dataSource.query(
    `UPDATE webhook_deliveries
        SET first_attempt_at = first_attempt_at - interval '25 hours', next_attempt_at = now()
      WHERE status = 'pending' AND subscription_id = ANY($1)`,
    [webhookIds],
  );
  await until(dataSource, async () => {
    const [{ pending }] = await dataSource.query<{ pending: number }[]>(
      `SELECT count(*) AS pending FROM webhook_deliveries
        WHERE status = 'pending' AND subscription_id = ANY($1)`,
      [webhookIds],
    );
    return pending === 0;
  });
}

async function until(dataSource: DataSource, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('seed: the demo webhook deliveries did not settle');
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** The rows the seed made: only these are back-dated. */
interface SeedRows {
  petIds: number[];
  categoryIds: number[];
  webhookIds: number[];
  /** Audit ids: the seed's set-up entries are in (first, mark], its logins after mark. */
  audit: { first: number; mark: number };
}

/**
 * Moves the demo back over the past month, order kept: the accounts, categories and the
 * webhook to its first day; pet k of n created at day 30·k/n, and its later events spread
 * between then and now, each photo and delivery with its event; the logins (audit entries
 * after `audit.mark`) over the days in their order. Only timestamps change, and only of rows
 * the seed made.
 */
async function backdate(dataSource: DataSource, rows: SeedRows) {
  const { petIds, categoryIds, webhookIds } = rows;
  const auditMark = rows.audit.mark;
  const now = Date.now();
  const first = now - DEMO_DAYS * DAY_MS;
  const petTimes = petIds.map(
    (_, k) => new Date(first + ((k + 0.5) * DEMO_DAYS * DAY_MS) / petIds.length),
  );
  const logins = await dataSource.query<{ id: number; action: string; outcome: string }[]>(
    'SELECT id, action, outcome FROM audit_events WHERE id > $1 ORDER BY id',
    [auditMark],
  );
  // Slots less than a day apart, for the sign-ins that succeed only, so that every day of
  // the month has one whatever the time of day now; a failed one comes an hour before the
  // next, and each logout 20 to 80 minutes after its sign-in.
  const isSignIn = (entry: { action: string; outcome: string }) =>
    entry.action === 'auth.login' && entry.outcome === 'success';
  const slotOf = (slot: number) =>
    first + ((slot + 0.5) * DEMO_DAYS * DAY_MS) / logins.filter(isSignIn).length;
  let slot = -1;
  const loginTimes = logins.map((entry) => {
    if (isSignIn(entry)) slot += 1;
    const at =
      entry.action === 'auth.logout'
        ? slotOf(slot) + (20 + (slot % 7) * 10) * 60_000
        : isSignIn(entry)
          ? slotOf(slot)
          : slotOf(slot + 1) - 60 * 60_000;
    return new Date(at);
  });
  await dataSource.transaction(async (manager) => {
    const q = (sql: string, params: unknown[] = []) => manager.query(sql, params);
    const start = new Date(first - DAY_MS);
    await q('UPDATE users SET created_at = $1, updated_at = $1 WHERE username = ANY($2)', [
      start,
      [DEMO_STAFF.username, DEMO_CUSTOMER.username],
    ]);
    await q('UPDATE categories SET created_at = $1, updated_at = $1 WHERE id = ANY($2)', [
      start,
      categoryIds,
    ]);
    await q('UPDATE webhook_subscriptions SET created_at = $1 WHERE id = ANY($2)', [
      start,
      webhookIds,
    ]);
    await q(
      `UPDATE audit_events SET occurred_at = $2::timestamptz + (id - $1) * interval '1 second'
        WHERE id > $3 AND id <= $1`,
      [auditMark, start, rows.audit.first],
    );
    await q(
      `UPDATE audit_events a SET occurred_at = t.at
         FROM unnest($1::bigint[], $2::timestamptz[]) AS t(id, at) WHERE a.id = t.id`,
      [logins.map((entry) => entry.id), loginTimes],
    );
    await q(
      `WITH plan AS (SELECT * FROM unnest($1::bigint[], $2::timestamptz[]) AS p(id, at)),
            ev AS (SELECT e.sequence, plan.at,
                          row_number() OVER (PARTITION BY e.pet_id ORDER BY e.sequence) - 1 AS k,
                          count(*) OVER (PARTITION BY e.pet_id) AS n
                     FROM pet_events e JOIN plan ON plan.id = e.pet_id)
       UPDATE pet_events e SET occurred_at = ev.at + (now() - ev.at) * (ev.k::float8 / ev.n)
         FROM ev WHERE e.sequence = ev.sequence`,
      [petIds, petTimes],
    );
    await q(
      `UPDATE pets p SET created_at = e.first, updated_at = e.last
         FROM (SELECT pet_id, min(occurred_at) AS first, max(occurred_at) AS last
                 FROM pet_events GROUP BY pet_id) e
        WHERE e.pet_id = p.id AND p.id = ANY($1)`,
      [petIds],
    );
    await q(
      `UPDATE pet_images i SET created_at = e.occurred_at
         FROM pet_events e WHERE e.pet_id = i.pet_id AND e.type = 'pet.image_added'
          AND i.pet_id = ANY($1)`,
      [petIds],
    );
    // Every timestamp of a delivery and its attempts moves with its event.
    await q(
      `WITH shift AS (SELECT d.id, e.occurred_at - d.created_at AS by
                        FROM webhook_deliveries d JOIN pet_events e ON e.sequence = d.event_sequence
                       WHERE d.subscription_id = ANY($1))
       UPDATE webhook_delivery_attempts a SET attempted_at = a.attempted_at + shift.by
         FROM shift WHERE a.delivery_id = shift.id`,
      [webhookIds],
    );
    await q(
      `UPDATE webhook_deliveries d
          SET next_attempt_at = d.next_attempt_at + (e.occurred_at - d.created_at),
              first_attempt_at = d.first_attempt_at + (e.occurred_at - d.created_at),
              last_attempt_at = d.last_attempt_at + (e.occurred_at - d.created_at),
              completed_at = d.completed_at + (e.occurred_at - d.created_at),
              created_at = e.occurred_at
         FROM pet_events e WHERE e.sequence = d.event_sequence AND d.subscription_id = ANY($1)`,
      [webhookIds],
    );
  });
}
