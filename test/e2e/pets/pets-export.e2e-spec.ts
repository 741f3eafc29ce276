import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiKey, createUser } from '../../support/auth.js';
import { errorBody, expectValidationError } from '../../support/errors.js';
import { linkTags } from '../../support/pets.js';
import { seededRandom } from '../../support/seeded-random.js';
import { testLogs, type LogLine } from '../../support/test-logs.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

/**
 * GET /pets/export: what it streams is what GET /pets lists, for any filters, in both
 * formats, byte for byte (the database writes the export's lines, the app the list's JSON);
 * and it streams at the pace the client reads.
 */

const CATEGORIES = ['Dogs', 'Cats', 'Birds'];
// Text that JSON and CSV must escape, in a category's description and in names.
const DESCRIBED = { Dogs: 'Loyal, "good"\tfriends\\ since 1900\n' } as Record<string, string>;
const STATUSES = ['available', 'pending', 'sold'] as const;
const NAMES = [
  'Rex',
  'Max',
  'Bella, the "Queen"',
  'Luna\nof the moon',
  'Milo\r\u0001\u001f\u007f',
  'Zoë 😀 \u2028 </script>',
];
const BREEDS = ['Labrador', 'Beagle', 'Poodle'];
const WORDS = ['calm', 'brown', 'loyal', 'quick'];
const TAGS = ['calm', 'small', 'young'];
const TIMES = Array.from(
  { length: 6 },
  (_, i) => Date.parse('2025-03-01T00:00:00.000Z') + i * 3_600_000,
);
const SEEDED = 60;
const CSV_HEADER = 'id,name,category,status,tags,photoUrls,age,breed,description,externalId';

interface PetJson {
  id: number;
  name: string;
  category: { id: number; name: string; description?: string };
  status: string;
  tags: { id: number; name: string }[];
  photoUrls: string[];
  age?: number;
  breed?: string;
  description?: string;
  externalId?: string;
}

const ndjsonOf = (text: string): unknown[] => {
  const lines = text.split('\n');
  expect(lines.pop()).toBe('');
  return lines.map((line) => JSON.parse(line) as unknown);
};

/** The export's NDJSON of these pets: each as JSON.stringify writes the list's JSON of it. */
const ndjsonText = (pets: PetJson[]) => pets.map((pet) => `${JSON.stringify(pet)}\n`).join('');

/** A pet's CSV record as csv-parse reads it back, from its JSON. */
const csvRecordOf = (pet: PetJson) => ({
  id: String(pet.id),
  name: pet.name,
  category: pet.category.name,
  status: pet.status,
  tags: pet.tags.map((tag) => tag.name).join('|'),
  photoUrls: pet.photoUrls.join('|'),
  age: pet.age === undefined ? '' : String(pet.age),
  breed: pet.breed ?? '',
  description: pet.description ?? '',
  externalId: pet.externalId ?? '',
});

describe('Pet export (e2e)', () => {
  let t: TestApp;
  let port: number;
  const categoryIds: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'warn' });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    for (const name of CATEGORIES) {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name, description: DESCRIBED[name] })
        .expect(201);
      categoryIds[name] = res.body.id as number;
    }
    // Seeded in SQL, as the search properties are: through the API it would take most of
    // the file's time.
    const pick = seededRandom(44);
    const some = <T>(list: readonly T[], max: number) => [
      ...new Set(Array.from({ length: pick(max + 1) }, () => list[pick(list.length)])),
    ];
    const seed = Array.from({ length: SEEDED }, () => ({
      name: NAMES[pick(NAMES.length)],
      status: STATUSES[pick(3)],
      categoryId: categoryIds[CATEGORIES[pick(CATEGORIES.length)]],
      breed: pick(4) === 0 ? null : BREEDS[pick(BREEDS.length)],
      description: pick(3) === 0 ? null : some(WORDS, 3).join(' ') || null,
      age: pick(4) === 0 ? null : pick(12),
      photoUrls: some(['https://example.com/a.jpg', 'https://example.com/b,c.jpg'], 2),
      createdAt: TIMES[pick(TIMES.length)],
      updatedAt: TIMES[pick(TIMES.length)] + pick(1000),
      tags: some(TAGS, 2),
    }));
    await t.dataSource.query(
      'INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [TAGS],
    );
    const inserted = await t.dataSource.query<{ id: number }[]>(
      `INSERT INTO pets (name, status, category_id, breed, description, age, photo_urls,
                         created_at, updated_at, external_id)
       SELECT name, status::pet_status, category_id, breed, description, age,
              ARRAY(SELECT jsonb_array_elements_text(urls)), to_timestamp(ms / 1000.0),
              to_timestamp(updated_ms / 1000.0),
              CASE WHEN n % 3 = 0 THEN 'SKU-' || n || ', "' || n || '"' END
         FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::int4[],
                     $7::jsonb[], $8::float8[], $9::float8[]) WITH ORDINALITY
              AS u(name, status, category_id, breed, description, age, urls, ms, updated_ms, n)
        ORDER BY n
       RETURNING id`,
      [
        seed.map((pet) => pet.name),
        seed.map((pet) => pet.status),
        seed.map((pet) => pet.categoryId),
        seed.map((pet) => pet.breed),
        seed.map((pet) => pet.description),
        seed.map((pet) => pet.age),
        seed.map((pet) => JSON.stringify(pet.photoUrls)),
        seed.map((pet) => pet.createdAt),
        seed.map((pet) => pet.updatedAt),
      ],
    );
    // Identity values follow the insertion order.
    const ids = inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
    const links = seed.flatMap((pet, n) => pet.tags.map((tag) => [ids[n], tag] as const));
    await linkTags(t, links);
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  /** Every pet GET /pets lists for the query, paged through by cursor, newest id first. */
  async function listed(query: string): Promise<PetJson[]> {
    const pets: PetJson[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.http
        .get(`/v1/pets?${query}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .set(t.user)
        .expect(200);
      pets.push(...(res.body.pets as PetJson[]));
      cursor = res.body.pagination.nextCursor as string | undefined;
    } while (cursor);
    return pets.sort((a, b) => b.id - a.id);
  }

  const exported = (query: string, format: 'ndjson' | 'csv') =>
    t.http.get(`/v1/pets/export?${query}&format=${format}`).set(t.user).expect(200);

  const filtersArb = () => {
    const anyCase = (word: string) => fc.constantFrom(word, word.toUpperCase());
    const time = fc
      .tuple(fc.constantFrom(...TIMES), fc.constantFrom(-1, 0, 1))
      .map(([at, shift]) => new Date(at + shift).toISOString());
    const sometimes = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });
    return fc
      .record({
        q: sometimes(fc.constantFrom(...WORDS, 'rex', 'labrador -calm')),
        category: sometimes(fc.constantFrom(...CATEGORIES).chain(anyCase)),
        status: sometimes(fc.constantFrom(...STATUSES)),
        tag: sometimes(fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 2 })),
        breed: sometimes(fc.constantFrom(...BREEDS).chain(anyCase)),
        minAge: sometimes(fc.integer({ min: 0, max: 6 })),
        maxAge: sometimes(fc.integer({ min: 6, max: 12 })),
        createdAfter: sometimes(time),
        createdBefore: sometimes(time),
      })
      .map((filters) => {
        const params = new URLSearchParams();
        for (const [name, value] of Object.entries(filters)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) {
            params.append(name, String(one));
          }
        }
        return params.toString();
      });
  };

  it('should export in both formats exactly the pets the list pages through, for any filters', async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb(), async (query) => {
        const pets = await listed(query);

        const ndjson = await exported(query, 'ndjson');
        expect(ndjsonOf(ndjson.text)).toEqual(pets);
        expect(ndjson.text).toBe(ndjsonText(pets));

        const csv = await exported(query, 'csv');
        expect(csv.text.split('\n')[0]).toBe(CSV_HEADER);
        expect(parse(csv.text, { columns: true })).toEqual(pets.map(csvRecordOf));
        // As csv-stringify writes the records: RFC 4180 quoting only where a field needs it.
        const records = pets.map((pet) => Object.values(csvRecordOf(pet)));
        expect(csv.text).toBe(stringify([CSV_HEADER.split(','), ...records]));
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('should name the file and the type of each format, and export every pet without filters', async () => {
    const ndjson = await t.http.get('/v1/pets/export').set(t.admin).expect(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson');
    expect(ndjson.headers['content-disposition']).toMatch(
      /^attachment; filename="pets-\d{4}-\d{2}-\d{2}\.ndjson"$/,
    );
    const date = new Date().toISOString().slice(0, 10);
    expect([date, new Date(Date.now() - 60_000).toISOString().slice(0, 10)]).toContain(
      /pets-(.+)\.ndjson/.exec(ndjson.headers['content-disposition'])![1],
    );
    expect(ndjson.text).toBe(ndjsonText(await listed('')));

    const csv = await t.http.get('/v1/pets/export?format=csv').set(t.admin).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="pets-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
  });

  it('should answer an export that matches nothing with the CSV header alone, or nothing', async () => {
    const csv = await exported('category=Nowhere', 'csv');
    expect(csv.text).toBe(`${CSV_HEADER}\n`);
    const ndjson = await exported('category=Nowhere', 'ndjson');
    expect(ndjson.text).toBe('');
  });

  it('should quote CSV fields with commas, quotes and line breaks, and leave absent fields empty', async () => {
    const category = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Quoting' })
      .expect(201);
    const created = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({
        name: 'Rex, "the Great"\nof Rome',
        categoryId: category.body.id,
        status: 'available',
        tags: ['b, c', 'a "q"'],
        photoUrls: ['https://example.com/1.jpg', 'https://example.com/2.jpg'],
        description: 'Line one\r\nline two',
        externalId: 'SKU-1, "b"',
      })
      .expect(201);

    const res = await exported('category=Quoting', 'csv');
    expect(res.text).toBe(
      `${CSV_HEADER}\n` +
        `${created.body.id},"Rex, ""the Great""\nof Rome",Quoting,available,` +
        `"a ""q""|b, c",https://example.com/1.jpg|https://example.com/2.jpg,,,` +
        `"Line one\r\nline two","SKU-1, ""b"""\n`,
    );
    expect(parse(res.text, { columns: true })).toEqual([csvRecordOf(created.body as PetJson)]);
  });

  it('should refuse an unknown format, and the list’s paging and sort, with 400 naming them', async () => {
    for (const format of ['xml', '', 'CSV']) {
      expectValidationError(await t.http.get(`/v1/pets/export?format=${format}`).set(t.user), [
        'format',
      ]);
    }
    expectValidationError(
      await t.http.get('/v1/pets/export?format=csv&format=ndjson').set(t.user),
      ['format'],
    );
    expectValidationError(await t.http.get('/v1/pets/export?sort=name&limit=5').set(t.user), [
      'sort',
      'limit',
    ]);
    expectValidationError(await t.http.get('/v1/pets/export?minAge=-1').set(t.user), ['minAge']);
  });

  it('should let staff export with pets:read, and refuse a key without it and customers', async () => {
    const make = async (scopes: string[]) => {
      const res = await t.http
        .post('/v1/api-keys')
        .set(t.user)
        .send({ name: 'export', mode: 'test', scopes })
        .expect(201);
      return apiKey(res.body.key as string);
    };
    await t.http
      .get('/v1/pets/export?status=sold')
      .set(await make(['pets:read']))
      .expect(200);
    const refused = await t.http.get('/v1/pets/export').set(await make(['pets:write']));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(errorBody('INSUFFICIENT_SCOPE', { required: ['pets:read'] }));

    const customer = await createUser(t, { role: 'customer' });
    const forbidden = await t.http.get('/v1/pets/export').set(customer.headers);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
  });

  describe('at the pace of a slow reader', () => {
    const BULK = 8_000;
    let bulkCategory: number;

    beforeAll(async () => {
      const res = await t.http.post('/v1/categories').set(t.admin).send({ name: 'Bulk' });
      bulkCategory = res.body.id as number;
      // About 4.6 kB a line, 37 MB in all: several times what the kernel's buffers hold on
      // both sides of a paused connection, with a batch (4.6 MB) in the socket's buffer.
      // A thousand a statement: each stays within the app's statement time-outs.
      for (let from = 1; from <= BULK; from += 1_000) {
        await t.dataSource.query(
          `INSERT INTO pets (name, status, category_id, description)
           SELECT 'Bulk ' || n, 'available', $1, repeat('quiet dog ', 450)
             FROM generate_series($2::int, $2::int + 999) n`,
          [bulkCategory, from],
        );
      }
    }, 120_000);

    /**
     * Opens the export on a connection of its own and pauses at its first bytes; returns the
     * server's side of the connection, and resumes reading on request, collecting the lines.
     */
    async function pausedExport(path: string) {
      const server = t.app.getHttpServer();
      const serverSocket = new Promise<Socket>((resolve) => server.once('connection', resolve));
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path, headers: t.admin, agent: false });
        req.on('response', resolve).on('error', reject);
      });
      response.pause();
      const body = new Promise<{ lines: number; bytes: number }>((resolve, reject) => {
        let lines = 0;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 0x0a) lines += 1;
        });
        response.on('end', () =>
          response.complete ? resolve({ lines, bytes }) : reject(new Error('cut short')),
        );
        response.on('error', reject);
        response.on('aborted', () => reject(new Error('cut short')));
      });
      body.catch(() => undefined);
      return { response, socket: await serverSocket, body };
    }

    /**
     * What the server has handed to the connection (sent, or held in its buffer) once it
     * stops growing while the server waits for the socket to drain.
     */
    async function whenStalled(socket: Socket): Promise<number> {
      let last = -1;
      let unchanged = 0;
      await waitFor(() => {
        const now = socket.bytesWritten;
        unchanged = now === last ? unchanged + 1 : 0;
        last = now;
        return Promise.resolve(socket.writableNeedDrain && unchanged >= 25);
      }, 30_000);
      return last;
    }

    // Back-pressure, seen from the server's side of the connection: the client stops reading,
    // TCP fills both sides' kernel buffers, the server's socket then holds what it cannot pass
    // on (writableNeedDrain), and `bytesWritten` (every byte handed to the socket, sent or
    // buffered) stops growing, far below the export's size: no batch is read and encoded
    // until the client reads again. A server that buffered would hand it everything.
    it('should stop producing while the client does not read, and finish once it does', async () => {
      const { response, socket, body } = await pausedExport(
        `/v1/pets/export?category=Bulk&format=ndjson`,
      );
      expect(response.statusCode).toBe(200);

      const stalledAt = await whenStalled(socket);
      response.resume();
      const { lines, bytes } = await body;

      expect(lines).toBe(BULK);
      expect(bytes).toBeGreaterThan(35_000_000);
      expect(stalledAt).toBeLessThan(bytes / 2);
    }, 120_000);

    it('should cut the response short, and log why, when a read fails mid-stream', async () => {
      const { response, socket, body } = await pausedExport(
        // A time bound: its batches are not named statements, so each is planned again.
        `/v1/pets/export?category=Bulk&createdAfter=2000-01-01T00:00:00Z&format=csv`,
      );
      expect(response.statusCode).toBe(200);
      await whenStalled(socket);

      await t.dataSource.query('ALTER TABLE pets RENAME TO pets_away');
      try {
        response.resume();
        await expect(body).rejects.toThrow();
      } finally {
        await t.dataSource.query('ALTER TABLE pets_away RENAME TO pets');
      }
      const cut = (line: LogLine) =>
        line.context === 'Pets' && String(line.msg).startsWith('Pet export cut short');
      const logged: LogLine[] = [];
      await waitFor(() => {
        logged.push(...testLogs.take(cut));
        return Promise.resolve(logged.length > 0);
      });
      expect(logged).toEqual([expect.objectContaining({ level: 'warn' })]);
      // The request's own line, once the socket is gone, says it ended unfinished.
      await waitFor(() =>
        Promise.resolve(
          testLogs.take((line) => line.msg === 'request aborted by the client').length > 0,
        ),
      );
    }, 120_000);
  });
});
