import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';

/** Rows written in one batch (the file's 7 rows), and the same pets created one by one. */
const ENV = { ...FAST_DELIVERY, PET_IMPORT_BATCH_ROWS: '50' };

/** Pets of every shape a create takes: tags shared, new, repeated, none; optional fields. */
const BODIES: Record<string, unknown>[] = [
  { name: 'Rex', status: 'available' },
  {
    name: 'Nala',
    status: 'pending',
    tags: ['friendly', 'calm'],
    photoUrls: ['https://example.com/nala.jpg', 'https://example.com/nala-2.jpg'],
    age: 3,
    breed: 'Beagle',
    description: 'Loves "walks", and\nnaps',
  },
  { name: 'Milo', status: 'sold', tags: ['calm', 'calm'], age: 0 },
  { name: 'Odin', status: 'available', tags: ['friendly'], breed: 'Husky' },
  { name: 'Luna', status: 'available', tags: ['shy', 'calm', 'friendly'], description: 'Quiet' },
  { name: 'Tom', status: 'pending', age: 12 },
  { name: 'Kiki', status: 'available', tags: ['shy'], photoUrls: ['https://example.com/k.jpg'] },
];

interface ImportBody {
  status: string;
  counts: Record<string, number>;
  errors: { row: number; field: string; message: string }[];
}

interface PetBody {
  id: number;
  externalId: string;
  [field: string]: unknown;
}

/** What differs between two pets made of one body: their ids, externalIds and dates. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['id', 'petId', 'externalId', 'createdAt', 'updatedAt'].includes(key))
      .filter(([key]) => !['sequence', 'occurredAt', 'timestamp'].includes(key))
      .map(([key, field]) => [key, comparable(field)]),
  );
}

describe('Catalogue import in batches (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let secret: string;
  let categoryId: number;
  const hook = randomUUID();

  beforeAll(async () => {
    t = await createTestApp(ENV);
    receiver = await WebhookReceiver.start();
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Dogs' }).expect(201)
    ).body.id;
    const subscription = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(hook), events: ['pet.created', 'pet.updated'] })
      .expect(201);
    secret = subscription.body.secret;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const petWith = async (externalId: string): Promise<PetBody> => {
    const res = await t.http.get('/v1/pets').query({ externalId }).set(t.user).expect(200);
    expect(res.body.pets).toHaveLength(1);
    return res.body.pets[0];
  };
  const historyOf = async (pet: PetBody) =>
    (await t.http.get(`/v1/pets/${pet.id}/history`).set(t.admin).expect(200)).body.events;
  /** The webhooks delivered about `pet`, as received, verified. */
  const webhooksOf = (pet: PetBody) =>
    receiver
      .to(hook)
      .map((webhook) => verified(secret, webhook) as { data: { id: number } })
      .filter((payload) => payload.data.id === pet.id);

  /** Imports `file` (NDJSON, create mode) and answers the import once it has `ended`. */
  const imported = async (file: string, ended = 'succeeded') => {
    const started = await t.http
      .post('/v1/pets/imports')
      .set(t.user)
      .field('mode', 'create')
      .attach('file', Buffer.from(file), {
        filename: 'pets.ndjson',
        contentType: 'application/x-ndjson',
      })
      .expect(202);
    let done: ImportBody | undefined;
    await waitFor(async () => {
      done = (await t.http.get(`/v1/pets/imports/${started.body.id}`).set(t.user)).body;
      return done!.status === ended;
    }, 20_000);
    return done!;
  };

  it('should make the pets, tags, history and webhook events that single creates of the same rows make', async () => {
    for (const [index, body] of BODIES.entries()) {
      await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ ...body, categoryId, externalId: `ONE-${index}` })
        .expect(201);
    }
    const file = BODIES.map((body, index) =>
      JSON.stringify({ ...body, category: 'Dogs', externalId: `BATCH-${index}` }),
    ).join('\n');

    const done = await imported(file);
    expect(done.counts).toMatchObject({ valid: BODIES.length, created: BODIES.length });

    const pairs = await Promise.all(
      BODIES.map(async (_, index) => [
        await petWith(`ONE-${index}`),
        await petWith(`BATCH-${index}`),
      ]),
    );
    await waitFor(() =>
      Promise.resolve(pairs.every((pair) => pair.every((pet) => webhooksOf(pet).length > 0))),
    );
    for (const [one, batch] of pairs) {
      expect(batch.externalId).toMatch(/^BATCH-/);
      expect(comparable(batch)).toEqual(comparable(one));
      const [oneHistory, batchHistory] = [await historyOf(one), await historyOf(batch)];
      expect(batchHistory).toHaveLength(1);
      expect(comparable(batchHistory)).toEqual(comparable(oneHistory));
      expect(batchHistory[0].occurredAt).toBe(batch.updatedAt);
      const [oneWebhooks, batchWebhooks] = [webhooksOf(one), webhooksOf(batch)];
      expect(batchWebhooks).toHaveLength(1);
      expect(batchWebhooks[0].data).toEqual(batch);
      expect(comparable(batchWebhooks)).toEqual(comparable(oneWebhooks));
    }
  });

  /** Runs `work` with the row trigger `name` (`timing`, such as `BEFORE INSERT ON pets`) running `body`. */
  const withTrigger = async (
    name: string,
    timing: string,
    body: string,
    work: () => Promise<void>,
  ) => {
    await t.dataSource.query(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$`,
    );
    await t.dataSource.query(
      `CREATE TRIGGER ${name} ${timing} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
    );
    try {
      await work();
    } finally {
      await t.dataSource.query(`DROP TRIGGER ${name} ${timing.replace(/^.* ON /, 'ON ')}`);
      await t.dataSource.query(`DROP FUNCTION ${name}()`);
    }
  };

  /**
   * Runs `work` while the first `times` writes of the pet `externalId` are cancelled as the
   * statement time-out cancels one on a loaded database (57014), each rolling back its
   * transaction whole, but not the sequence that counts them.
   */
  const withCancelledWrites = async (
    externalId: string,
    times: number,
    work: () => Promise<void>,
  ) => {
    await t.dataSource.query('CREATE SEQUENCE test_faults');
    try {
      await withTrigger(
        'test_cancel',
        'BEFORE INSERT ON pets',
        `IF NEW.external_id = '${externalId}' AND nextval('test_faults') <= ${times} THEN
           RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = '57014';
         END IF;
         RETURN NEW;`,
        work,
      );
    } finally {
      await t.dataSource.query('DROP SEQUENCE test_faults');
    }
  };
  const fileOf = (prefix: string) =>
    [1, 2, 3]
      .map((row) =>
        JSON.stringify({
          name: `${prefix} ${row}`,
          category: 'Dogs',
          status: 'available',
          externalId: `${prefix}-${row}`,
        }),
      )
      .join('\n');

  it('should apply a batch again that a statement time-out cut, each row once, rather than stop the import', async () => {
    await withCancelledWrites('FLAKY-2', 1, async () => {
      const done = await imported(fileOf('FLAKY'));

      expect(done.errors).toEqual([]);
      expect(done.counts).toMatchObject({ rows: 3, valid: 3, created: 3 });
      for (const row of [1, 2, 3]) {
        const pet = await petWith(`FLAKY-${row}`);
        expect(await historyOf(pet)).toEqual([expect.objectContaining({ type: 'pet.created' })]);
      }
    });
  });

  it('should stop an import whose batch the fault cuts three times, at that batch, with nothing of it written', async () => {
    await withCancelledWrites('STUCK-2', 3, async () => {
      const done = await imported(fileOf('STUCK'), 'failed');

      expect(done.errors).toEqual([
        { row: 1, field: 'file', message: 'the import stopped on an error' },
      ]);
      expect(done.counts).toMatchObject({ rows: 3, valid: 3, created: 0 });
      for (const row of [1, 2, 3]) {
        const res = await t.http
          .get('/v1/pets')
          .query({ externalId: `STUCK-${row}` })
          .set(t.user);
        expect(res.body.pets).toEqual([]);
      }
    });
  });

  it('should keep the good rows of a batch that fails on a row whose externalId was taken since validation, refusing that row as a single create would', async () => {
    // Another pet takes LATE-2 just before the import's row does, in the row's statement: a
    // real conflict, whichever statement writes the row (the batch's, then the row's own).
    await withTrigger(
      'test_take_late',
      'BEFORE INSERT ON pets',
      `IF NEW.external_id = 'LATE-2' AND pg_trigger_depth() = 1 THEN
         INSERT INTO pets (name, category_id, status, external_id)
         VALUES ('Other', NEW.category_id, 'available', 'LATE-2');
       END IF;
       RETURN NEW;`,
      async () => {
        const file = [1, 2, 3]
          .map((row) =>
            JSON.stringify({
              name: `Late ${row}`,
              category: 'Dogs',
              status: 'available',
              externalId: `LATE-${row}`,
              tags: ['late'],
            }),
          )
          .join('\n');

        const done = await imported(file);

        const taken = await t.http
          .post('/v1/pets')
          .set(t.user)
          .send({ name: 'Again', categoryId, status: 'available', externalId: 'LATE-1' });
        expect(taken.status).toBe(409);
        expect(done.errors).toEqual([{ row: 2, field: 'externalId', message: taken.body.message }]);
        expect(done.counts).toMatchObject({ rows: 3, valid: 2, invalid: 1, created: 2 });
        for (const externalId of ['LATE-1', 'LATE-3']) {
          const pet = await petWith(externalId);
          expect(pet).toMatchObject({ tags: [expect.objectContaining({ name: 'late' })] });
          expect(await historyOf(pet)).toEqual([expect.objectContaining({ type: 'pet.created' })]);
        }
        // The row left nothing behind (nor did the trigger's pet, rolled back with it).
        const late = await t.http.get('/v1/pets').query({ externalId: 'LATE-2' }).set(t.user);
        expect(late.body.pets).toEqual([]);
      },
    );
  });

  /**
   * Runs `work` while `change` (SQL) is made as validation ends: in the statement that moves
   * an import from validating to running, so before any row is applied.
   */
  const withChangeAfterValidation = (change: string, work: () => Promise<void>) =>
    withTrigger(
      'test_change',
      'AFTER UPDATE ON pet_imports',
      `IF OLD.status = 'validating' AND NEW.status = 'running' THEN
         ${change};
       END IF;
       RETURN NEW;`,
      work,
    );
  const fileIn = (prefix: string, category: string) =>
    [1, 2]
      .map((row) =>
        JSON.stringify({
          name: `${prefix} ${row}`,
          category,
          status: 'available',
          externalId: `${prefix}-${row}`,
        }),
      )
      .join('\n');

  it('should create the rows in the category validation found, renamed since', async () => {
    const category = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Ferrets' })
      .expect(201);
    await withChangeAfterValidation(
      `UPDATE categories SET name = 'Polecats' WHERE name = 'Ferrets'`,
      async () => {
        const done = await imported(fileIn('RENAMED', 'Ferrets'));

        expect(done.errors).toEqual([]);
        expect(done.counts).toMatchObject({ rows: 2, valid: 2, invalid: 0, created: 2 });
        for (const externalId of ['RENAMED-1', 'RENAMED-2']) {
          expect(await petWith(externalId)).toMatchObject({
            category: { id: category.body.id, name: 'Polecats' },
          });
        }
      },
    );
  });

  it('should refuse the rows of a category deleted since validation, as a single create would', async () => {
    const category = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Stoats' })
      .expect(201);
    await withChangeAfterValidation(`DELETE FROM categories WHERE name = 'Stoats'`, async () => {
      const done = await imported(fileIn('GONE', 'Stoats'));

      const single = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Again', categoryId: category.body.id, status: 'available' });
      expect(single.status).toBe(400);
      const refusal = single.body.details.fields[0];
      expect(done.errors).toEqual([
        { row: 1, field: refusal.field, message: refusal.message },
        { row: 2, field: refusal.field, message: refusal.message },
      ]);
      expect(done.counts).toMatchObject({ rows: 2, valid: 0, invalid: 2, created: 0 });
      const gone = await t.http.get('/v1/pets').query({ externalId: 'GONE-1' }).set(t.user);
      expect(gone.body.pets).toEqual([]);
    });
  });
});
