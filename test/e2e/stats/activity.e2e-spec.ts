import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HOLD_EXPIRY_QUEUE } from '../../../src/adoptions/adoptions.service.js';
import { createUser } from '../../support/auth.js';
import { expectValidationError } from '../../support/errors.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The UTC day `daysAgo` days before today, `YYYY-MM-DD`. */
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
/** Noon of that day: safely inside it. */
const noonOf = (daysAgo: number) => `${day(daysAgo)}T12:00:00.000Z`;

const zero = {
  petsCreated: 0,
  petsSold: 0,
  logins: 0,
  failedLogins: 0,
  deliveriesSucceeded: 0,
  deliveriesFailed: 0,
  adoptionsRequested: 0,
  adoptionsCompleted: 0,
  adoptionsExpired: 0,
};

describe('Activity statistics (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();

    // Pets: three created and two sold today; then one creation and one sale moved to
    // yesterday, and one creation to five days ago.
    const category = await t.http.post('/v1/categories').set(t.admin).send({ name: 'Stats' });
    const petIds: number[] = [];
    for (const name of ['A', 'B', 'C', 'D']) {
      const pet = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name, categoryId: category.body.id, status: 'pending' })
        .expect(201);
      petIds.push(pet.body.id as number);
    }
    for (const id of petIds.slice(0, 2)) {
      await t.http.put(`/v1/pets/${id}`).set(t.user).send({ status: 'sold' }).expect(200);
    }
    const moveEvent = (petId: number, type: string, daysAgo: number) =>
      t.dataSource.query('UPDATE pet_events SET occurred_at = $3 WHERE pet_id = $1 AND type = $2', [
        petId,
        type,
        noonOf(daysAgo),
      ]);
    await moveEvent(petIds[0], 'pet.created', 1);
    await moveEvent(petIds[0], 'pet.status_changed', 1);
    await moveEvent(petIds[3], 'pet.created', 5);

    // Logins, as the audit log records them; only these (the start-up's are recorded too).
    await t.dataSource.query('TRUNCATE audit_events');
    const logins: [number, 'success' | 'failure'][] = [
      [0, 'success'],
      [0, 'success'],
      [0, 'failure'],
      [2, 'failure'],
      [5, 'success'],
    ];
    for (const [daysAgo, outcome] of logins) {
      await t.dataSource.query(
        `INSERT INTO audit_events (occurred_at, action, outcome, actor_credential)
         VALUES ($1, 'auth.login', $2, 'none')`,
        [noonOf(daysAgo), outcome],
      );
    }
    // Other actions count for nothing here.
    await t.dataSource.query(
      `INSERT INTO audit_events (action, outcome, actor_credential) VALUES ('auth.logout', 'success', 'jwt')`,
    );

    // Deliveries that ended on those days (and one still pending), to a subscription whose
    // events the pets above do not fan out to.
    const hook = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: 'https://8.8.8.8/hooks', events: ['pet.image_added'] })
      .expect(201);
    const deliveries: [number | null, string][] = [
      [0, 'succeeded'],
      [0, 'succeeded'],
      [1, 'failed'],
      [null, 'pending'],
      [5, 'succeeded'],
    ];
    for (const [i, [daysAgo, status]] of deliveries.entries()) {
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (subscription_id, event_sequence, event_id, event_type,
            pet_id, body, status, completed_at)
         VALUES ($1, $2, $3, 'pet.created', $4, '{}', $5, $6)`,
        [
          hook.body.id,
          i + 1,
          `evt_${String(i).padStart(32, '0')}`,
          petIds[0],
          status,
          daysAgo === null ? null : noonOf(daysAgo),
        ],
      );
    }
  });
  afterAll(() => t.close());

  it('should count each UTC day of the window from the database, oldest first, today last', async () => {
    const res = await t.http.get('/v1/stats/activity?days=3').set(t.admin).expect(200);

    expect(res.body).toEqual({
      days: [
        { date: day(2), ...zero, failedLogins: 1 },
        { date: day(1), ...zero, petsCreated: 1, petsSold: 1, deliveriesFailed: 1 },
        {
          date: day(0),
          ...zero,
          petsCreated: 2,
          petsSold: 1,
          logins: 2,
          failedLogins: 1,
          deliveriesSucceeded: 2,
        },
      ],
    });
  });

  it('should cover the last 30 days by default, days without activity counting 0', async () => {
    const res = await t.http.get('/v1/stats/activity').set(t.admin).expect(200);

    const days = res.body.days as { date: string }[];
    expect(days.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => day(29 - i)));
    expect(days[24]).toEqual({
      date: day(5),
      ...zero,
      petsCreated: 1,
      logins: 1,
      deliveriesSucceeded: 1,
    });
    expect(days.slice(0, 24)).toEqual(days.slice(0, 24).map(({ date }) => ({ date, ...zero })));
  });

  it('should take 1 to 90 days and answer 400 naming days otherwise', async () => {
    const one = await t.http.get('/v1/stats/activity?days=1').set(t.admin).expect(200);
    expect((one.body.days as { date: string }[]).map((d) => d.date)).toEqual([day(0)]);
    const ninety = await t.http.get('/v1/stats/activity?days=90').set(t.admin).expect(200);
    expect(ninety.body.days).toHaveLength(90);

    for (const days of ['0', '91', 'week', '1.5']) {
      expectValidationError(await t.http.get(`/v1/stats/activity?days=${days}`).set(t.admin), [
        'days',
      ]);
    }
  });
});

describe('Adoption activity statistics (e2e)', () => {
  let t: TestApp;

  const move = (id: number, name: string) =>
    t.http.post(`/v1/adoptions/${id}/${name}`).set(t.user).expect(200);
  async function request(): Promise<number> {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const res = await t.http.post('/v1/adoptions').set(adopter.headers).send({ petId }).expect(201);
    return res.body.id as number;
  }
  /** The adoption as if requested at `requestedAt` and, once closed, closed at `closedAt`. */
  const backdate = (id: number, requestedAt: string, closedAt?: string) =>
    t.dataSource.query(
      'UPDATE adoptions SET created_at = $2, closed_at = COALESCE($3, closed_at) WHERE id = $1',
      [id, requestedAt, closedAt ?? null],
    );
  const status = async (id: number) =>
    (await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200)).body.status as string;

  beforeAll(async () => {
    t = await createTestApp({ OUTBOX_POLL_INTERVAL_MS: '50' });

    // Completed yesterday, 24 h after its request.
    const completed = await request();
    await move(completed, 'approve');
    await move(completed, 'complete');
    await backdate(completed, noonOf(2), noonOf(1));
    // Completed yesterday, 6 h after its request, and returned today: still completed then.
    const returned = await request();
    await move(returned, 'approve');
    await move(returned, 'complete');
    await backdate(returned, noonOf(1), `${day(1)}T18:00:00.000Z`);
    await move(returned, 'return');
    // Expired today, by its hold's job, as if the hold had passed.
    const expired = await request();
    const hold = new Date(Date.now() - 1000).toISOString();
    await t.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE adoptions SET hold_expires_at = $2 WHERE id = $1', [
        expired,
        hold,
      ]);
      await manager.query(
        `UPDATE outbox_messages
            SET next_attempt_at = now(),
                event = jsonb_set(event, '{holdExpiresAt}', to_jsonb($3::text))
          WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
        [HOLD_EXPIRY_QUEUE, expired, hold],
      );
    });
    await waitFor(async () => (await status(expired)) === 'expired');
    // Requested today and rejected: a request, nothing more.
    await move(await request(), 'reject');

    // Only the adoptions' activity and their pets' (the sign-ins are counted above).
    await t.dataSource.query('TRUNCATE audit_events');
  });
  afterAll(() => t.close());

  it('should count requests on their day, and completions and expiries on the day they closed', async () => {
    const res = await t.http.get('/v1/stats/activity?days=3').set(t.admin).expect(200);

    expect(res.body).toEqual({
      days: [
        { date: day(2), ...zero, adoptionsRequested: 1 },
        {
          date: day(1),
          ...zero,
          adoptionsRequested: 1,
          adoptionsCompleted: 2,
          adoptionMedianHoursToComplete: 15,
        },
        {
          date: day(0),
          ...zero,
          petsCreated: 4,
          petsSold: 2,
          adoptionsRequested: 2,
          adoptionsExpired: 1,
        },
      ],
    });
  });
});
