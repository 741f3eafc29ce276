import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

const ENV = { OUTBOX_POLL_INTERVAL_MS: '50', PET_IMPORT_BATCH_ROWS: '25' };
const HEADER = 'id,name,category,status,tags,photoUrls,age,breed,description,externalId';

interface ImportBody {
  id: number;
  status: string;
  mode: string;
  dryRun: boolean;
  counts: Record<string, number>;
  progress: number;
  errors: { row: number; field: string; message: string }[];
  createdAt: string;
  finishedAt?: string;
}

describe('Catalogue import (e2e)', () => {
  let t: TestApp;
  let dogsId: number;

  beforeAll(async () => {
    t = await createTestApp(ENV);
    dogsId = (await t.http.post('/v1/categories').set(t.admin).send({ name: 'Dogs' }).expect(201))
      .body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const upload = (
    app: TestApp,
    content: string | Buffer,
    { filename = 'pets.csv', contentType = 'text/csv', mode = 'create', dryRun = 'false' } = {},
  ) =>
    app.http
      .post('/v1/pets/imports')
      .set(app.user)
      .field('mode', mode)
      .field('dryRun', dryRun)
      .attach('file', Buffer.from(content), { filename, contentType });

  const read = async (app: TestApp, id: number): Promise<ImportBody> =>
    (await app.http.get(`/v1/pets/imports/${id}`).set(app.user).expect(200)).body;

  const finished = async (app: TestApp, id: number, timeoutMs = 20_000): Promise<ImportBody> => {
    let last: ImportBody | undefined;
    await waitFor(async () => {
      last = await read(app, id);
      return ['succeeded', 'failed', 'cancelled'].includes(last.status);
    }, timeoutMs);
    return last!;
  };

  const importFile = async (content: string | Buffer, options = {}): Promise<ImportBody> => {
    const res = await upload(t, content, options).expect(202);
    expect(res.body).toEqual({
      id: expect.any(Number),
      status: 'queued',
      statusUrl: `/v1/pets/imports/${res.body.id}`,
    });
    return finished(t, res.body.id);
  };

  const petsWith = async (externalId: string) =>
    (await t.http.get('/v1/pets').query({ externalId }).set(t.user).expect(200)).body.pets;

  /** What a single create answers for this body: the import's messages must read the same. */
  const createMessage = async (body: object, field: string): Promise<string> => {
    const res = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', categoryId: dogsId, status: 'available', ...body });
    expect(res.status).toBe(400);
    return (res.body.details.fields as { field: string; message: string }[]).find(
      (f) => f.field === field,
    )!.message;
  };

  const csvWithEveryError = (prefix: string) =>
    [
      HEADER,
      `7,Rex,Dogs,available,friendly|calm,https://example.com/rex.jpg,3,Beagle,"Loves ""walks"", and
naps",${prefix}-1`,
      `,,dogs,available,,,,,,`,
      `,Tom,Dragons,available,,,,,,`,
      `,Tom,Dogs,lost,,,,,,`,
      `,Tom,Dogs,available,,,old,,,`,
      `,Tom,Dogs,available,,ftp://example.com/a.jpg,,,,`,
      `,Tom,Dogs,available,${'t'.repeat(51)},,,,,`,
      `,Tom,Dogs,available,,,,,,${prefix}-1`,
      `,Tom,Dogs,available,,,,,,${prefix}-taken`,
      `,Max,DOGS,pending,,,,,,`,
    ].join('\r\n');

  const expectedErrors = async () => [
    { row: 2, field: 'name', message: await createMessage({ name: undefined }, 'name') },
    { row: 3, field: 'category', message: 'category "Dragons" does not exist' },
    { row: 4, field: 'status', message: await createMessage({ status: 'lost' }, 'status') },
    { row: 5, field: 'age', message: await createMessage({ age: 'old' }, 'age') },
    {
      row: 6,
      field: 'photoUrls',
      message: await createMessage({ photoUrls: ['ftp://example.com/a.jpg'] }, 'photoUrls'),
    },
    { row: 7, field: 'tags', message: await createMessage({ tags: ['t'.repeat(51)] }, 'tags') },
    { row: 8, field: 'externalId', message: 'externalId is in row 1 too' },
    { row: 9, field: 'externalId', message: `another pet already has this externalId` },
  ];

  it('should report every kind of row error by row and field, with a single create’s messages, and apply the rest', async () => {
    await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Old', categoryId: dogsId, status: 'available', externalId: 'ERR-taken' })
      .expect(201);

    const done = await importFile(`\uFEFF${csvWithEveryError('ERR')}`);

    expect(done).toEqual({
      id: expect.any(Number),
      status: 'succeeded',
      mode: 'create',
      dryRun: false,
      counts: { rows: 10, valid: 2, invalid: 8, created: 2, updated: 0, unchanged: 0 },
      progress: 1,
      errors: await expectedErrors(),
      createdAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    // Quoting kept: a comma, doubled quotes and a line break inside a cell.
    const [rex] = await petsWith('ERR-1');
    expect(rex).toMatchObject({
      name: 'Rex',
      category: { id: dogsId, name: 'Dogs' },
      status: 'available',
      tags: [
        expect.objectContaining({ name: 'calm' }),
        expect.objectContaining({ name: 'friendly' }),
      ],
      photoUrls: ['https://example.com/rex.jpg'],
      age: 3,
      breed: 'Beagle',
      description: 'Loves "walks", and\nnaps',
    });
    const history = await t.http.get(`/v1/pets/${rex.id}/history`).set(t.admin).expect(200);
    expect(history.body.events).toEqual([
      expect.objectContaining({
        type: 'pet.created',
        actor: { userId: t.plainUser.id },
      }),
    ]);
  });

  it('should change nothing on a dry run and report exactly the errors the real run would', async () => {
    await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Old', categoryId: dogsId, status: 'available', externalId: 'DRY-taken' })
      .expect(201);
    const before = (await t.http.get('/v1/pets').set(t.user).expect(200)).body.pagination.total;

    const dry = await importFile(csvWithEveryError('DRY'), { dryRun: 'true' });

    expect(dry).toMatchObject({
      status: 'succeeded',
      dryRun: true,
      counts: { rows: 10, valid: 2, invalid: 8, created: 2, updated: 0, unchanged: 0 },
      progress: 1,
      errors: await expectedErrors(),
    });
    expect((await t.http.get('/v1/pets').set(t.user).expect(200)).body.pagination.total).toBe(
      before,
    );
    const real = await importFile(csvWithEveryError('DRY'));
    expect(real.errors).toEqual(dry.errors);
    expect(real.counts).toEqual(dry.counts);
  });

  it('should read NDJSON, the export’s shapes included, a line that is no object an error', async () => {
    const lines = [
      JSON.stringify({ name: 'Nala', category: 'Dogs', status: 'available', externalId: 'ND-1' }),
      '',
      JSON.stringify({
        id: 99,
        name: 'Milo',
        category: { id: dogsId, name: 'Dogs' },
        status: 'pending',
        tags: [{ id: 1, name: 'calm' }],
        externalId: 'ND-2',
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
      '{not json',
      JSON.stringify({ name: 'Odd', category: 'Dogs', status: 'available', colour: 'red' }),
    ].join('\n');

    const done = await importFile(lines, {
      filename: 'pets.ndjson',
      contentType: 'application/x-ndjson',
    });

    expect(done).toMatchObject({
      status: 'succeeded',
      counts: { rows: 4, valid: 2, invalid: 2, created: 2 },
      errors: [
        { row: 3, field: 'row', message: 'row must be a JSON object' },
        { row: 4, field: 'colour', message: 'property colour should not exist' },
      ],
    });
    const [milo] = await petsWith('ND-2');
    expect(milo).toMatchObject({ name: 'Milo', status: 'pending', tags: [{ name: 'calm' }] });
  });

  it('should upsert by externalId: created, updated and unchanged counted, each change in the history', async () => {
    const create = (body: object) =>
      t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ categoryId: dogsId, status: 'available', ...body })
        .expect(201)
        .then((res) => res.body as { id: number });
    await create({ name: 'Same', externalId: 'UP-same', tags: ['calm'] });
    const changed = await create({ name: 'Before', externalId: 'UP-changed', breed: 'Pug' });
    await create({ name: 'Sold', externalId: 'UP-sold' });

    const done = await importFile(
      [
        HEADER,
        ',Same,Dogs,available,calm,,,,,UP-same',
        ',After,Dogs,pending,,,,,,UP-changed',
        ',New,Dogs,available,,,,,,UP-new',
        ',NoId,Dogs,available,,,,,,',
        ',Sold,Dogs,sold,,,,,,UP-sold',
      ].join('\n'),
      { mode: 'upsert' },
    );

    expect(done).toMatchObject({
      status: 'succeeded',
      mode: 'upsert',
      counts: { rows: 5, valid: 3, invalid: 2, created: 1, updated: 1, unchanged: 1 },
      errors: [
        { row: 4, field: 'externalId', message: 'externalId is required in upsert mode' },
        { row: 5, field: 'status', message: 'a pet cannot move from available to sold' },
      ],
    });
    const after = await t.http.get(`/v1/pets/${changed.id}`).set(t.user).expect(200);
    // The row is the pet's whole state: the breed it leaves out is cleared.
    expect(after.body).toMatchObject({ name: 'After', status: 'pending' });
    expect(after.body).not.toHaveProperty('breed');
    const history = await t.http.get(`/v1/pets/${changed.id}/history`).set(t.admin).expect(200);
    const events = history.body.events as { type: string }[];
    expect(events.map((e) => e.type)).toEqual(['pet.status_changed', 'pet.updated', 'pet.created']);
    expect(history.body.events[1].changedFields).toEqual(['name', 'breed']);
  });

  it('should show its progress while it runs, and stop applying rows once cancelled', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `,Pet ${i},Dogs,available,,,,,,CAN-${i}`);
    const res = await upload(t, [HEADER, ...rows].join('\n')).expect(202);
    const { id } = res.body;
    let running: ImportBody | undefined;
    await waitFor(async () => {
      running = await read(t, id);
      return running.status === 'running' && running.progress > 0;
    }, 20_000);
    expect(running!.progress).toBeLessThan(1);

    await t.http.delete(`/v1/pets/imports/${id}`).set(t.user).expect(200, {});

    const cancelled = await read(t, id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.finishedAt).toEqual(expect.any(String));
    const [{ count }] = await t.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM pets WHERE external_id LIKE 'CAN-%'`,
    );
    expect(count).toBe(cancelled.counts.created);
    expect(count).toBeLessThan(2000);
    // Its job is gone with the cancel, or ends at its next batch.
    await waitFor(async () => {
      const [{ queued }] = await t.dataSource.query<{ queued: number }[]>(
        `SELECT count(*)::int AS queued FROM outbox_messages WHERE consumer = 'pets.import'`,
      );
      return queued === 0;
    });
    expect((await read(t, id)).counts.created).toBe(cancelled.counts.created);

    const again = await t.http.delete(`/v1/pets/imports/${id}`).set(t.user);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(errorBody('PET_IMPORT_FINISHED', { status: 'cancelled' }));
  });

  it('should fail a file it cannot read, or with more than 100,000 rows, saying why', async () => {
    const broken = await importFile([HEADER, ',"Rex,Dogs,available,,,,,,'].join('\n'));
    expect(broken).toMatchObject({
      status: 'failed',
      errors: [{ row: 1, field: 'file', message: expect.any(String) }],
    });

    const many = await importFile(
      ['name', ...Array.from({ length: 100_001 }, () => 'x')].join('\n'),
    );
    expect(many).toMatchObject({
      status: 'failed',
      counts: { rows: 0 },
      errors: [{ row: 100_001, field: 'file', message: 'an import holds at most 100000 rows' }],
    });
  });

  it('should refuse a form without a file, with a bad mode, or a file neither CSV nor NDJSON', async () => {
    expectValidationError(
      await t.http.post('/v1/pets/imports').set(t.user).field('mode', 'create'),
      ['file'],
    );
    expectValidationError(await upload(t, HEADER, { mode: 'merge' }), ['mode']);
    const text = await upload(t, 'hello', { filename: 'pets.txt', contentType: 'text/plain' });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('should answer 404 PET_IMPORT_NOT_FOUND for an unknown import', async () => {
    const missing = await t.http.get('/v1/pets/imports/999999').set(t.user);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(errorBody('PET_IMPORT_NOT_FOUND'));
    expectError(
      await t.http.delete('/v1/pets/imports/999999').set(t.user),
      404,
      'PET_IMPORT_NOT_FOUND',
    );
  });
});

describe('Catalogue import across a restart (e2e)', () => {
  it('should resume where it stopped after a restart, applying no row twice', async () => {
    const first = await createTestApp(ENV);
    const database = first.database;
    let second: TestApp | undefined;
    try {
      await first.http.post('/v1/categories').set(first.admin).send({ name: 'Dogs' }).expect(201);
      const rows = Array.from({ length: 1500 }, (_, i) => `,Pet ${i},Dogs,available,,,,,,RS-${i}`);
      const res = await first.http
        .post('/v1/pets/imports')
        .set(first.user)
        .attach('file', Buffer.from([HEADER, ...rows].join('\n')), {
          filename: 'pets.csv',
          contentType: 'text/csv',
        })
        .expect(202);
      const { id } = res.body;
      await waitFor(async () => {
        const body = (await first.http.get(`/v1/pets/imports/${id}`).set(first.user)).body;
        return body.status === 'running' && body.progress > 0;
      }, 20_000);

      // Stopped in the middle (60 batches of 25): the import ends its batch and waits for
      // the next start.
      await first.app.close();

      second = await createTestApp(ENV, { database });
      const app = second;
      let done: ImportBody | undefined;
      await waitFor(async () => {
        done = (await app.http.get(`/v1/pets/imports/${id}`).set(app.user)).body;
        return done!.status === 'succeeded';
      }, 30_000);
      expect(done).toMatchObject({
        counts: { rows: 1500, valid: 1500, invalid: 0, created: 1500 },
        errors: [],
      });
      const [{ pets, created }] = await app.dataSource.query<{ pets: number; created: number }[]>(
        `SELECT (SELECT count(*)::int FROM pets WHERE external_id LIKE 'RS-%') AS pets,
                (SELECT count(*)::int FROM pet_events e JOIN pets p ON p.id = e.pet_id
                  WHERE p.external_id LIKE 'RS-%' AND e.type = 'pet.created') AS created`,
      );
      expect({ pets, created }).toEqual({ pets: 1500, created: 1500 });
    } finally {
      await second?.close();
      await database.drop();
    }
  });
});
