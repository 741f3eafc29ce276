import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { holdPasses, queuedExpiries } from '../../support/adoptions.js';
import { AppProcess } from '../../support/app-process.js';
import { TestSmtpServer } from '../../support/smtp-server.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';

jest.setTimeout(180_000);

const JSON_BODY = { 'content-type': 'application/json' };
const PASSWORD = 'correct horse battery';

/** The JSON answer to a request on one instance, failing on an unexpected status. */
async function call<T>(
  app: AppProcess,
  path: string,
  init: RequestInit & { status?: number; token?: string } = {},
): Promise<T> {
  const { status = 200, token, ...rest } = init;
  const headers = { ...JSON_BODY, ...(rest.headers as Record<string, string>) };
  const res = token
    ? await fetch(`${app.url}${path}`, {
        ...rest,
        headers: { ...headers, Authorization: `Bearer ${token}` },
      })
    : await app.fetch(path, { ...rest, headers });
  const body = (await res.json()) as T;
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const post = <T>(app: AppProcess, path: string, body: object, token?: string) =>
  call<T>(app, path, { method: 'POST', body: JSON.stringify(body), status: 201, token });

// Instances of the built service on one PostgreSQL database: PGlite has one process.
const withServer = process.env.DATABASE_URL ? describe : describe.skip;

withServer('An adoption’s hold across instances and a restart (e2e, PostgreSQL)', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let smtp: TestSmtpServer;
  let client: pg.Client;
  const apps: AppProcess[] = [];
  const start = async () => {
    const app = await AppProcess.start({ ...database.env, ...FAST_DELIVERY, SMTP_URL: smtp.url });
    apps.push(app);
    return app;
  };
  const query = async (sql: string, params: unknown[]) =>
    (await client.query<Record<string, unknown>>(sql, params)).rows;

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await WebhookReceiver.start();
    smtp = await TestSmtpServer.start();
    client = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
  });
  afterAll(async () => {
    await client?.end();
    await smtp?.stop();
    await receiver?.stop();
    await database?.drop();
  });

  /**
   * Waits until no job of any queue is left to run now: whatever would be sent has been. The
   * hold's reminder, due a day before the 3-day hold would have ended, is not yet.
   */
  const outboxEmpty = () =>
    waitFor(async () => {
      const [{ count }] = await query(
        `SELECT count(*)::int AS count FROM outbox_messages
          WHERE failed_at IS NULL AND next_attempt_at <= now()`,
        [],
      );
      return count === 0;
    }, 30_000);

  it('should expire a hold exactly once when two instances, one of them restarted, find it due', async () => {
    const instances = await Promise.all([start(), start()]);
    let first = instances[0];
    const second = instances[1];

    const name = randomUUID();
    const webhook = await post<{ id: number; secret: string }>(first, '/v1/webhooks', {
      url: receiver.url(name),
      events: ['adoption.requested', 'adoption.expired'],
    });
    const category = await post<{ id: number }>(first, '/v1/categories', { name: `C ${name}` });
    const pet = await post<{ id: number }>(first, '/v1/pets', {
      name: 'Rex',
      categoryId: category.id,
      status: 'available',
    });
    const username = `adopter_${name.slice(0, 8)}`;
    await post(first, '/v1/users', {
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
      role: 'customer',
    });
    const { token } = await call<{ token: string }>(second, '/v1/auth/login', {
      method: 'POST',
      body: JSON.stringify({ username, password: PASSWORD }),
      headers: JSON_BODY,
    });
    const adoption = await post<{ id: number }>(second, '/v1/adoptions', { petId: pet.id }, token);
    await waitFor(() => Promise.resolve(receiver.acknowledged(name).length === 1), 30_000);

    // A restart in between: the hold's job outlives the instance that queued it.
    expect(await first.stop()).toBe(0);
    first = await start();

    await holdPasses(query, adoption.id);
    await waitFor(async () => (await queuedExpiries(query, adoption.id)) === 0, 30_000);
    await outboxEmpty();

    const expired = await call<{ status: string; pet: { status: string } }>(
      first,
      `/v1/adoptions/${adoption.id}`,
    );
    expect(expired).toMatchObject({ status: 'expired', pet: { status: 'available' } });
    const history = await call<{ events: { type: string; to?: string; adoptionId?: number }[] }>(
      second,
      `/v1/pets/${pet.id}/history`,
    );
    expect(
      history.events
        .filter((event) => event.type === 'pet.status_changed')
        .map((event) => [event.to, event.adoptionId]),
    ).toEqual([
      ['available', adoption.id],
      ['pending', adoption.id],
    ]);
    const payloads = receiver
      .to(name)
      .map((r) => verified(webhook.secret, r) as { type: string; data: { id: number } });
    expect(payloads.map((p) => [p.type, p.data.id])).toEqual([
      ['adoption.requested', adoption.id],
      ['adoption.expired', adoption.id],
    ]);
    // Mail goes to a real server: the expiry's, once.
    const mails = () => smtp.mailsTo(`${username}@example.com`);
    await waitFor(() => Promise.resolve(mails().length > 0), 30_000);
    await outboxEmpty();
    expect(mails().map((mail) => mail.parsed.subject)).toEqual([
      expect.stringMatching(/has ended/),
    ]);
  });
});
