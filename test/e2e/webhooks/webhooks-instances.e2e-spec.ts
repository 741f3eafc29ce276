import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppProcess } from '../../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';
import { messageOf } from '../../../src/common/errors/message-of.js';

jest.setTimeout(120_000);

const JSON_BODY = { 'content-type': 'application/json' };

interface Delivery {
  id: number;
  eventId: string;
  status: string;
  attempts: number;
}

/** The admin's JSON answer to a request on one instance, failing on an unexpected status. */
async function call<T>(app: AppProcess, path: string, init: RequestInit = {}, status = 200) {
  const res = await app.fetch(path, { ...init, headers: { ...JSON_BODY, ...init.headers } });
  const body = (await res.json()) as T;
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const post = <T>(app: AppProcess, path: string, body: object, status = 201) =>
  call<T>(app, path, { method: 'POST', body: JSON.stringify(body) }, status);

async function subscribe(app: AppProcess, receiver: WebhookReceiver, name: string) {
  return post<{ id: number; secret: string }>(app, '/v1/webhooks', {
    url: receiver.url(name),
    events: ['pet.created', 'pet.updated'],
  });
}

async function newPet(app: AppProcess, categoryId: number) {
  return post<{ id: number }>(app, '/v1/pets', {
    name: 'Rex',
    categoryId,
    status: 'available',
  });
}

async function newCategory(app: AppProcess) {
  return (await post<{ id: number }>(app, '/v1/categories', { name: `C ${randomUUID()}` })).id;
}

const deliveriesOf = async (app: AppProcess, webhookId: number) =>
  (await call<{ deliveries: Delivery[] }>(app, `/v1/webhooks/${webhookId}/deliveries`)).deliveries;

// Instances of the built service on one PostgreSQL database: PGlite has one process.
const withServer = process.env.DATABASE_URL ? describe : describe.skip;

withServer('Webhook deliveries across instances and restarts (e2e, PostgreSQL)', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const apps: AppProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const app = await AppProcess.start({ ...database.env, ...FAST_DELIVERY, ...env });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
  });
  afterAll(async () => {
    await receiver?.stop();
    await database?.drop();
  });

  it('should deliver after a restart an event whose instance was killed before delivering it', async () => {
    // Its retries wait up to 2 s, so that it is rarely mid-send (holding the lease) when killed.
    const first = await start({ WEBHOOKS_RETRY_BASE_MS: '2000' });
    const name = randomUUID();
    const webhook = await subscribe(first, receiver, name);
    // Down: it answers, but never with a 2xx. (Closing its port would let another test's
    // server take it meanwhile.)
    receiver.answer(name, 503);
    const pet = await newPet(first, await newCategory(first));
    // Committed, tried, and not delivered.
    await waitFor(async () => (await deliveriesOf(first, webhook.id))[0]?.attempts >= 1, 30_000)
      // Says why, should this ever fail: the instance's own log.
      .catch((error: unknown) => {
        throw new Error(`${messageOf(error)}; the instance wrote:\n${first.lines.join('\n')}`);
      });
    const [{ eventId }] = await deliveriesOf(first, webhook.id);

    first.signal('SIGKILL');
    await first.exitCode();
    receiver.answer(name, 204);
    const second = await start();

    // Within the lease (60 s) that a send cut short by the kill leaves behind, at the most.
    await waitFor(() => Promise.resolve(receiver.acknowledged(name).length >= 1), 75_000);
    await waitFor(
      async () => (await deliveriesOf(second, webhook.id))[0].status === 'succeeded',
      10_000,
    );
    const [acknowledged] = receiver.acknowledged(name);
    expect(acknowledged.headers['webhook-id']).toBe(eventId);
    expect(verified(webhook.secret, acknowledged)).toEqual(
      expect.objectContaining({
        type: 'pet.created',
        data: expect.objectContaining({ id: pet.id }),
      }),
    );
    expect(receiver.acknowledged(name)).toHaveLength(1);
  });

  it('should deliver each event once when two instances work the same database', async () => {
    const [first, second] = await Promise.all([start(), start()]);
    const name = randomUUID();
    const webhook = await subscribe(first, receiver, name);
    const categoryId = await newCategory(first);
    const events = 30;

    for (let i = 0; i < events / 2; i += 1) {
      const app = i % 2 === 0 ? first : second;
      const pet = await newPet(app, categoryId);
      await call(app, `/v1/pets/${pet.id}`, { method: 'PUT', body: JSON.stringify({ age: i }) });
    }

    await waitFor(() => Promise.resolve(receiver.acknowledged(name).length >= events), 30_000);
    // Anything sent twice would arrive meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.to(name).map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(events);
    expect(new Set(ids).size).toBe(events);
    const deliveries = await deliveriesOf(second, webhook.id);
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual(
      Array.from({ length: events }, () => ['succeeded', 1]),
    );
  });

  it('should finish and record a send in flight when stopped with SIGTERM', async () => {
    const first = await start();
    const name = randomUUID();
    const webhook = await subscribe(first, receiver, name);
    receiver.reply(name, { status: 200, delayMs: 1_500 });
    await newPet(first, await newCategory(first));
    await waitFor(() => Promise.resolve(receiver.to(name).length === 1));

    expect(await first.stop()).toBe(0);

    const second = await start();
    expect((await deliveriesOf(second, webhook.id)).map((d) => [d.status, d.attempts])).toEqual([
      ['succeeded', 1],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(name)).toHaveLength(1);
  });
});
