import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request, { type Response } from 'supertest';
import { ERROR_CODES } from '../../../src/common/errors/api-exception.js';
import { filtersTag } from '../../../src/pets/pet-cursor.js';
import { apiKey, createApiKey, createUser, type Headers } from '../../support/auth.js';
import { pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

/**
 * docs/input.md, Property-based test: every operation of the app's own OpenAPI document,
 * fed hostile input in its path, query and body by each kind of caller, never answers 5xx,
 * and every 4xx is the error body of docs/api.md. A failure prints fast-check's shrunk
 * counterexample; the seed is fixed so that a run is repeatable.
 */
const SEED = 20261123;
const RUNS_PER_OPERATION = 80;

interface Operation {
  parameters?: { name: string; in: 'path' | 'query' | 'header'; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** A JSON number written as is: JSON.stringify cannot write 1e400 or -0. */
class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON text of a generated value; keys such as __proto__ stay own keys. */
function toJson(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Nesting of arrays or objects around a leaf, as deep as given. */
const nested = (depth: number, leaf: unknown, asObject: boolean): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = asObject ? { a: value } : [value];
  return value;
};

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

const hostileString = fc.oneof(
  fc.string({
    unit: fc.constantFrom('\u0000', '\ud800', '\udfff', 'a', 'Z', ' ', 'é', '\u{1F436}', '%', '"'),
    maxLength: 12,
  }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'null', 'NaN', 'Infinity', '-0', '1e308', '9223372036854775808'),
  fc.constantFrom('available', 'admin', 'live', 'http://example.com/a.png'),
  fc.integer({ min: 51, max: 6000 }).map((length) => 'x'.repeat(length)),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 63), 2 ** 53 + 2, 0, -1, 1.5, 200, 201),
  fc
    .constantFrom('1e400', '-1e400', '-0', '9223372036854775808', '1.0', '1e2')
    .map((text) => new RawNumber(text)),
  fc.integer(),
  fc.double(),
);

const hostileLeaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

const hostileKey = fc.oneof(
  fc.constantFrom(...PROTOTYPE_KEYS, 'id', 'role', 'createdAt', 'a\u0000b', '\ud800'),
  fc.string({ maxLength: 8 }),
);

const hostileValue = fc.oneof(
  { weight: 4, arbitrary: hostileLeaf },
  { weight: 1, arbitrary: fc.array(hostileLeaf, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileKey, hostileLeaf, { maxKeys: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 10, max: 100 }), hostileLeaf, fc.boolean())
      .map(([depth, leaf, asObject]) => nested(depth, leaf, asObject)),
  },
);

/** Characters that make a string unstorable or unpaired, put into an otherwise valid value. */
const POISON = fc.constantFrom('\u0000', '\u0000', '\ud800', '\udc00');

/**
 * A value the schema allows (within small bounds): hostile input hidden in an otherwise
 * valid request gets past validation of the other fields, to the service and the database.
 */
function validValue(schema: Schema, resolve: (s: Schema) => Schema): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.enum) return fc.constantFrom(...s.enum);
  const type = (Array.isArray(s.type) ? s.type[0] : s.type) ?? 'string';
  switch (type) {
    case 'integer': {
      const min = s.minimum ?? 0;
      return fc.integer({ min, max: Math.min(s.maximum ?? min + 5, min + 5) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(s.items ?? {}, resolve), {
        maxLength: Math.min(s.maxItems ?? 3, 3),
      });
    case 'object':
      return fc.record(
        Object.fromEntries(
          Object.entries(s.properties ?? {}).map(([k, v]) => [k, validValue(v, resolve)]),
        ),
        { requiredKeys: s.required ?? [] },
      );
    default: {
      if (s.format === 'email') return WORD.map((w) => `${w}@example.com`);
      if (s.format === 'uri') return WORD.map((w) => `http://example.com/${w}.png`);
      const minLength = Math.max(s.minLength ?? 0, s.format === 'password' ? 8 : 0);
      return fc.string({
        unit: fc.constantFrom(...'abcXYZ019_.-'),
        minLength,
        maxLength: Math.min(s.maxLength ?? 20, minLength + 12),
      });
    }
  }
}

const WORD = fc.string({ unit: fc.constantFrom(...'abcdefxyz0189'), minLength: 3, maxLength: 10 });

/** One field of a valid object made hostile: replaced, poisoned, nested into, or a new key. */
function mutated(valid: fc.Arbitrary<unknown>, fields: string[]) {
  return fc
    .tuple(valid, fc.constantFrom(...fields, ...PROTOTYPE_KEYS), hostileValue, POISON, fc.nat(3))
    .map(([value, key, hostile, poison, how]) => {
      const object = (typeof value === 'object' && value !== null ? value : {}) as Record<
        string,
        unknown
      >;
      const current = object[key];
      const replacement =
        how <= 1 && typeof current === 'string'
          ? `${current}${poison}`
          : how === 2 && Array.isArray(current)
            ? [...(current as unknown[]), typeof current[0] === 'string' ? poison : hostile]
            : hostile;
      return { ...object, [key]: replacement };
    });
}

/** A JSON body: valid but for one field, wholly hostile, or not JSON at all. */
function jsonBody(schema: Schema, resolve: (s: Schema) => Schema): fc.Arbitrary<string> {
  const fields = Object.keys(resolve(schema).properties ?? {});
  return fc.oneof(
    { weight: 6, arbitrary: mutated(validValue(schema, resolve), fields).map(toJson) },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.oneof(fc.constantFrom(...fields), hostileKey), hostileValue, {
          maxKeys: 4,
        })
        .map(toJson),
    },
    { weight: 1, arbitrary: hostileValue.map(toJson) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":1', '\u0000', '[]]', '', 'nul') },
  );
}

/** Percent-encoding of a string's UTF-8, lone surrogates as the bytes a careless encoder sends. */
const percentEncode = (value: string) =>
  [...value]
    .map((ch) =>
      /^[A-Za-z0-9_.~-]$/.test(ch)
        ? ch
        : [...Buffer.from(/\p{Cs}/u.test(ch) ? `\u{FFFD}` : ch)]
            .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
            .join(''),
    )
    .join('')
    .replaceAll('%EF%BF%BD', '%ED%A0%80');

const hostileSegment = fc.oneof(
  hostileString.filter((s) => s.length < 300).map(percentEncode),
  fc.constantFrom('%00', '1%00', '0', '-1', '1.5', '01', '9223372036854775808', '%2F', '..', '%'),
);

const encodePairs = (pairs: [string, unknown][]) =>
  pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(String(v))}`).join('&');

/** A query: valid but for one parameter, or hostile pairs (repeated, bracketed, unknown). */
function queryString(params: { name: string; schema: Schema }[], resolve: (s: Schema) => Schema) {
  const query: Schema = {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
  };
  const names = params.map((p) => p.name);
  const hostilePairs = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...names, ...PROTOTYPE_KEYS, 'a[b]', 'limit[]'), hostileKey),
      hostileString.filter((v) => v.length < 1000),
    ),
    { maxLength: 4 },
  );
  return fc.oneof(
    mutated(validValue(query, resolve), names.length > 0 ? names : ['q']).map((object) =>
      encodePairs(
        Object.entries(object).map(([k, v]) => [k, typeof v === 'string' ? v : toJson(v)]),
      ),
    ),
    hostilePairs.map(encodePairs),
  );
}

/** `/V1/Pets` for `/v1/pets`: letters of the literal parts in a random case. */
const caseVariant = (path: string) =>
  fc
    .array(fc.boolean(), { minLength: path.length, maxLength: path.length })
    .map((upper) => [...path].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join(''));

interface Plan {
  path: string;
  query: string;
  body?: string;
  form?: { fields: [string, string][]; image?: Buffer };
}

describe('Hostile input on every operation (e2e, property-based)', () => {
  let t: TestApp;
  let document: Document;
  const callers: Record<string, Headers> = {};
  /**
   * Ids that exist, so that hostile bodies also reach the handlers behind the id checks: by
   * parameter name (`petId`), or by path template where the parameter is a plain `id`.
   */
  const existing: Record<string, string[]> = {};
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp();
    png = await pngImage(8, 8);
    document = (await t.http.get('/v1/openapi.json').expect(200)).body as Document;
    const key = await createApiKey(t, t.user);
    callers['admin bearer token'] = t.admin;
    callers['user API key'] = apiKey(key.key);
    callers.anonymous = {};
    // Targets of their own: a hostile PUT or DELETE must not take the callers' accounts away.
    const victim = await createUser(t);
    const pet = String(await createPet(t));
    const spareKey = await createApiKey(t, t.admin, 'test', 'spare');
    const category = (await t.http.get(`/v1/pets/${pet}`).set(t.user).expect(200)).body.category
      .id as number;
    existing.petId = [pet];
    existing['/v1/users/{id}'] = [String(victim.id)];
    existing['/v1/categories/{id}'] = [String(category)];
    existing['/v1/api-keys/{id}'] = [String(spareKey.id)];
  });
  afterAll(async () => {
    await t.close();
  });

  function plans(path: string, operation: Operation): fc.Arbitrary<Plan> {
    const params = operation.parameters ?? [];
    const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
    const queryParams = params.filter((p) => p.in === 'query');
    const segments = fc.record(
      Object.fromEntries(
        pathNames.map((name) => {
          const real = existing[name] ?? existing[path] ?? [];
          return [
            name,
            real.length > 0 ? fc.oneof(hostileSegment, fc.constantFrom(...real)) : hostileSegment,
          ];
        }),
      ),
    );
    const url = segments.chain((values) => {
      const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '');
      return fc.oneof(
        { weight: 4, arbitrary: fc.constant(filled) },
        { weight: 1, arbitrary: caseVariant(filled) },
      );
    });
    const content = operation.requestBody?.content ?? {};
    const json = content['application/json']?.schema;
    const body: fc.Arbitrary<Pick<Plan, 'body' | 'form'>> = json
      ? jsonBody(json, schemaOf).map((text) => ({ body: text }))
      : content['multipart/form-data']
        ? multipartForm().map((form) => ({ form }))
        : fc.constant({});
    return fc
      .tuple(url, queryString(queryParams, schemaOf), body)
      .map(([p, query, rest]) => ({ path: p, query, ...rest }));
  }

  function schemaOf(schema: Schema): Schema {
    return schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema;
  }

  function multipartForm() {
    const description = fc.oneof(
      hostileString.filter((v) => v.length < 600),
      fc.tuple(WORD, POISON).map(([w, poison]) => `${w}${poison}`),
    );
    return fc.record(
      {
        fields: fc.array(
          fc.tuple(
            fc.oneof(
              { weight: 3, arbitrary: fc.constant('description') },
              { weight: 1, arbitrary: fc.constantFrom('__proto__[a]', 'constructor', 'x[0]') },
              { weight: 1, arbitrary: hostileKey },
            ),
            description,
          ),
          { maxLength: 3 },
        ),
        image: fc.oneof(
          fc.constant(png),
          fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        ),
      },
      { requiredKeys: ['fields'] },
    );
  }

  async function send(method: string, plan: Plan, headers: Headers): Promise<Response> {
    const target = `${plan.path}${plan.query ? `?${plan.query}` : ''}`;
    const server = t.app.getHttpServer();
    let req = request(server)[method as 'get'](target).set(headers);
    if (plan.body !== undefined) {
      req = req.set('Content-Type', 'application/json').send(plan.body);
    } else if (plan.form) {
      for (const [name, value] of plan.form.fields) req = req.field(name, value);
      if (plan.form.image) req = req.attach('image', plan.form.image, 'photo.jpg');
    }
    return req;
  }

  function expectContractAnswer(method: string, plan: Plan, res: Response): void {
    const seen = { method, ...plan, status: res.status, body: res.body as unknown };
    expect({ ...seen, serverError: res.status >= 500 }).toEqual({ ...seen, serverError: false });
    if (res.status < 400 || method === 'head') return;
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      code: expect.stringMatching(new RegExp(`^(${ERROR_CODES.join('|')})$`)),
      message: expect.any(String),
      ...(res.body.details === undefined ? {} : { details: expect.any(Object) }),
      requestId: res.headers['x-request-id'],
    });
  }

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('should cover every operation of the document', () => {
    expect(operations().length).toBeGreaterThanOrEqual(20);
  });

  it.each(['admin bearer token', 'user API key', 'anonymous'])(
    'should never answer 5xx, and answer 4xx with the error body, as %s',
    async (caller) => {
      for (const { path, method, operation } of operations()) {
        await fc.assert(
          fc.asyncProperty(plans(path, operation), async (plan) => {
            expectContractAnswer(method, plan, await send(method, plan, callers[caller]));
          }),
          { seed: SEED, numRuns: RUNS_PER_OPERATION },
        );
      }
    },
    120_000,
  );

  it('should refuse, 400 on cursor, every cursor the service did not issue or that was altered', async () => {
    // Pets of its own: the hostile requests above may have deleted the others.
    const pet = await createPet(t);
    await createPet(t, { age: 7 });
    await t.http.put(`/v1/pets/${pet}`).set(t.user).send({ age: 3 }).expect(200);
    // A list of each kind (pets by age, a pet's history, the audit log), a page of one.
    const lists = ['/v1/pets?sort=age&limit=1', `/v1/pets/${pet}/history?limit=1`];
    lists.push('/v1/audit-events?limit=1');
    const issued: string[] = [];
    for (const list of lists) {
      const res = await t.http.get(list).set(t.admin).expect(200);
      issued.push(res.body.pagination.nextCursor as string);
    }
    const base64url = (json: string) => Buffer.from(json).toString('base64url');
    const altered = fc
      .tuple(fc.nat(issued.length - 1), fc.nat(), fc.constantFrom(...'AQgw_-09azZ'))
      .chain(([list, at, char]) => {
        const cursor = issued[list];
        const i = at % cursor.length;
        return fc.constantFrom(
          {
            list,
            cursor: cursor.slice(0, i) + (cursor[i] === char ? 'B' : char) + cursor.slice(i + 1),
          },
          // Cut, but not to nothing: an empty `cursor=` is no cursor.
          { list, cursor: cursor.slice(0, Math.max(i, 1)) },
          { list, cursor: `${cursor}${char}` },
        );
      });
    const count = fc.oneof(hostileNumber, fc.constantFrom(2 ** 40, 2 ** 31, 1));
    const forged = fc.oneof(
      fc
        .tuple(count, count, count)
        .map(([key, id, offset]) => [key, id, offset, filtersTag({}, 'age')])
        .map((parts) => ({ list: 0, cursor: base64url(toJson(parts)) })),
      fc.tuple(count, count, count).map((parts) => ({ list: 1, cursor: base64url(toJson(parts)) })),
      count.map((beforeId) => ({ list: 2, cursor: base64url(toJson([beforeId])) })),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(altered, forged), async ({ list, cursor }) => {
        const res = await t.http.get(`${lists[list]}&cursor=${cursor}`).set(t.admin);
        const seen = { list: lists[list], cursor, status: res.status, body: res.body as unknown };
        const named = (res.body.details?.fields as { field: string }[] | undefined)?.map(
          (field) => field.field,
        );
        expect({ ...seen, refused: { status: res.status, code: res.body.code, named } }).toEqual({
          ...seen,
          refused: { status: 400, code: 'VALIDATION_ERROR', named: ['cursor'] },
        });
      }),
      { seed: SEED, numRuns: 300 },
    );
  }, 120_000);
});
