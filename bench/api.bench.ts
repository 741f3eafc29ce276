import { deepStrictEqual } from 'node:assert/strict';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { freePort } from '../test/support/free-port.js';
import { generousRateLimits } from '../test/support/rate-limits.js';
import { API_KEY_HEADER } from '../src/common/http/header-names.js';
import {
  ADMIN_PASSWORD,
  databaseUrl as databaseUrlOf,
  json,
  measure as measureLoad,
  medianSample,
  prepareDatabase as prepareDatabaseOf,
  start,
  tokens as tokensOf,
  vacuumLikeAutovacuum,
  type LoadOptions,
  type RequestSetup,
  type Sample,
} from './load.js';
import { adoptionScenarios, ensureAdoptionPets } from './adoptions.bench.js';
import { exportScenarios } from './export.bench.js';
import { ensureImportCategory, importScenarios } from './import.bench.js';
import { waitForHttp } from './processes.js';
import { mirrorAppDatabase } from './raw-own-database.js';
import { afterCheckpoint, withoutSearchUpkeep } from './search-upkeep.js';
import { closeSink, otlpSinkFor, preloadOf, variantOf } from './tracing.js';

/**
 * `npm run bench [-- --quick] [--only=search | --only=bounds | --only=by-id | --only=create | --only=by-key | --only=adoptions [--a2] | --only=export | --only=import | --core] [--profile] [--variant=KEY=VALUE ...]`: the app against three baselines on one seeded PostgreSQL: the
 * app-SQL baseline (bench/baseline.ts, the app's own SQL and mapper without the framework),
 * the raw baseline (bench/raw-baseline.ts, written without either, on the app's schema) and,
 * in the core rows, the raw baseline on its own schema (bench/raw-own-baseline.ts, in its
 * own database, a copy of the app's data). Scenario by scenario,
 * in alternating rounds, with many rotating credentials, once their answers to sample
 * requests are checked to be the app's. Prints a table of medians and writes it as JSON to
 * bench/results/. With `--variant`, a second app process with those environment variables
 * changed runs beside the first, so that a change behind a setting is measured before and
 * after in the same run ("variant" columns). With
 * BENCH_COMPARE_APP=<another worktree>/dist-bench/src/main.js, that build is the variant: a
 * change to the code, before and after, in the same run.
 */
const QUICK = process.argv.includes('--quick');
/**
 * Scenarios 1–6 and 8 only: no search rows (11–15, more than half of a full run), no 60 s
 * run (7) and no second processes (9), whose start a loaded machine can stretch past the
 * wait for them.
 */
const CORE = process.argv.includes('--core');
const VARIANT = variantOf(process.argv);
/** Another build's dist-bench/src/main.js, run as the variant. */
const COMPARE = process.env.BENCH_COMPARE_APP;
const HAS_VARIANT = Object.keys(VARIANT).length > 0 || COMPARE !== undefined;
const PETS = QUICK ? 50_000 : 1_000_000;
const ROUNDS = 3;
const SECONDS = QUICK ? 3 : 8;
const CONNECTIONS = 32;
const UPKEEP_ROUNDS = 5;
const UPKEEP_SECONDS = 8;
const USERS = 200;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Another database of the same server, e.g. one seeded for a branch's own runs. */
const DATABASE = process.env.BENCH_DATABASE ?? (QUICK ? 'petstore_bench_quick' : 'petstore_bench');
/** The own-schema raw baseline's database: a copy of DATABASE's data on its own schema. */
const OWN_DATABASE = `${DATABASE}_raw`;
/** The one `--only=NAME` of the command line, if any: that group of rows alone. */
const ONLY = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const ONLY_NAMES = [
  'search',
  'bounds',
  'by-id',
  'create',
  'by-key',
  'adoptions',
  'export',
  'import',
];
if (ONLY !== undefined && !ONLY_NAMES.includes(ONLY)) {
  throw new Error(`--only=${ONLY}: expected one of ${ONLY_NAMES.join(', ')}`);
}
/**
 * `--only=search`: the create row (5a), the create with and without what search adds to it
 * (5c), and rows 11–15.
 */
const ONLY_SEARCH = ONLY === 'search';
/** `--only=bounds`: the adversarial searches alone (rows 16 and 17). */
const ONLY_BOUNDS = ONLY === 'bounds';
/** `--only=by-id`: row 4 alone, e.g. to compare a change of the read with BENCH_COMPARE_APP. */
const ONLY_BY_ID = ONLY === 'by-id';
/** `--only=create`: row 5a alone, e.g. to compare a change of the write with BENCH_COMPARE_APP. */
const ONLY_CREATE = ONLY === 'create';
/**
 * `--only=by-key`: row 4k alone, the read with a key limited to `pets:read`; beside a
 * BENCH_COMPARE_APP build from before scopes, what checking a key's scopes costs.
 */
const ONLY_BY_KEY = ONLY === 'by-key';
/** `--profile`: the app's CPU profile of the whole run, written to bench/results/profiles. */
const PROFILE = process.argv.includes('--profile');
const PROFILE_DIR = 'bench/results/profiles';
/** `--only=adoptions`: the adoption rows alone (A1–A4, adoptions.bench.ts). */
const ONLY_ADOPTIONS = ONLY === 'adoptions';
/** `--only=export`: the export rows alone (E, export.bench.ts). */
const ONLY_EXPORT = ONLY === 'export';
/** `--only=import`: the import rows alone (I1 and I2, import.bench.ts). */
const ONLY_IMPORT = ONLY === 'import';
/** The rows the own-schema raw baseline serves: the core rows, alone or in the full run. */
const RAW_OWN = ONLY === undefined || ONLY_BY_ID || ONLY_CREATE;
/** The import rows run alone, or in the full run. */
const IMPORTS = ONLY_IMPORT || (ONLY === undefined && !CORE);
/** The adoption rows run alone, or in the full run. */
const ADOPTIONS = ONLY_ADOPTIONS || (ONLY === undefined && !CORE);
/**
 * The adoption rows' own pets: more than the fastest server's requests in one round (the raw
 * baseline's, about 1,500 a second here).
 */
const ADOPTION_PETS = QUICK ? 15_000 : 30_000;
/** Customers requesting adoptions, each with up to ADOPTIONS_OPEN_PER_ADOPTER open in a round. */
const CUSTOMERS = 100;
const JWT_SECRET = randomBytes(32).toString('base64url');

const databaseUrl = () => databaseUrlOf(DATABASE);
const prepareDatabase = () => prepareDatabaseOf(DATABASE, PETS);
const tokens = (base: string) => tokensOf(base, USERS);
const measure = (origin: string, path: string, options: Partial<LoadOptions> = {}) =>
  measureLoad(origin, path, { connections: CONNECTIONS, seconds: SECONDS, ...options });

interface Row {
  scenario: string;
  app: Sample;
  baseline?: Sample;
  raw?: Sample;
  rawOwn?: Sample;
  variant?: Sample;
  target: string;
  met?: boolean;
  note?: string;
}

type Server = 'app' | 'baseline' | 'raw' | 'rawOwn' | 'variant';
type Answer = Record<string, unknown>;
type Runs = { app: () => Promise<Sample> } & Partial<Record<Server, () => Promise<Sample>>>;

/** The servers in alternating rounds; the median of each. */
async function sideBySide(runs: Runs, rounds = ROUNDS): Promise<Pick<Row, Server>> {
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [server, run] of Object.entries(runs)) {
      await vacuumLikeAutovacuum(DATABASE);
      samples.set(server, [...(samples.get(server) ?? []), await run()]);
    }
  }
  const medians = [...samples].map(([server, list]) => [server, medianSample(list)]);
  return Object.fromEntries(medians) as Pick<Row, Server>;
}

/** One server's JSON answer to a request with `token`; the run fails on another status. */
async function answerOf(
  origin: string,
  token: string,
  method: string,
  path: string,
  body?: string,
): Promise<Answer> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body,
  });
  return json<Answer>(response);
}

/**
 * Fails the run unless every other server's answer is the app's JSON (key order aside);
 * `ownValues`, which differ between two writes (ids, times), are taken from the app's answer.
 */
function assertSame(answers: [string, Answer][], what: string, ownValues: string[] = []): void {
  const [[, app], ...others] = answers;
  for (const [server, answer] of others) {
    const appValues = Object.fromEntries(ownValues.map((key) => [key, app[key]]));
    deepStrictEqual({ ...answer, ...appValues }, app, `${server} differs on ${what}`);
  }
}

/** The app's answer to a request, once every other server's is checked to be the same. */
async function sameAnswers(
  origins: Partial<Record<Server, string>>,
  token: string,
  method: string,
  path: string,
  body?: string,
  ownValues: string[] = [],
): Promise<Answer> {
  // One server after the other: the baselines write in another order than the app (tags
  // before the pet), so concurrent creates of the same new tags could deadlock each other.
  const all: [string, Answer][] = [];
  for (const [server, origin] of Object.entries(origins)) {
    all.push([server, await answerOf(origin, token, method, path, body)]);
  }
  assertSame(all, `${method} ${path}`, ownValues);
  return all[0][1];
}

/**
 * Fails the run unless both baselines answer a write, and reads of what it wrote, lists,
 * pages and a seeded pet, with the app's JSON; the id of the pet written.
 */
async function checkSameAnswers(
  origins: Partial<Record<Server, string>>,
  token: string,
  newPet: string,
  filtered: string,
): Promise<number> {
  const answers = (method: string, path: string, body?: string, ownValues?: string[]) =>
    sameAnswers(origins, token, method, path, body, ownValues);
  const { id } = await answers('POST', '/v1/pets', newPet, ['id', 'createdAt', 'updatedAt']);
  const rename = JSON.stringify({ name: 'Checked pet' });
  await answers('PUT', `/v1/pets/${String(id)}`, rename, ['updatedAt']);
  await answers('GET', `/v1/pets/${String(id)}`);
  const page = (await answers('GET', filtered)) as { pagination: { nextCursor: string } };
  await answers('GET', `${filtered}&cursor=${page.pagination.nextCursor}`);
  await answers('GET', '/v1/pets?limit=20');
  await answers('GET', '/v1/pets?limit=20&offset=10000');
  await answers('GET', '/v1/pets/1');
  console.log("bench: every other server answers the sample requests with the app's JSON");
  return Number(id);
}

/**
 * Fails the run unless the own-schema raw baseline, on its fresh copy of the app's data,
 * answers the same reads as the app (the pet `checked` written by checkSameAnswers, lists,
 * pages, a seeded pet), then a create, an update and a read of what each server wrote itself
 * (its own id and times).
 */
async function checkOwnSchemaAnswers(
  origins: { app: string; rawOwn: string },
  token: string,
  checked: number,
  newPet: string,
  filtered: string,
): Promise<void> {
  const read = (path: string) => sameAnswers(origins, token, 'GET', path);
  await read(`/v1/pets/${checked}`);
  const page = (await read(filtered)) as { pagination: { nextCursor: string } };
  await read(`${filtered}&cursor=${page.pagination.nextCursor}`);
  await read('/v1/pets?limit=20');
  await read('/v1/pets?limit=20&offset=10000');
  await read('/v1/pets/1');
  const servers = Object.entries(origins);
  const written: [string, Answer][] = [];
  for (const [server, origin] of servers) {
    written.push([server, await answerOf(origin, token, 'POST', '/v1/pets', newPet)]);
  }
  const own = ['id', 'createdAt', 'updatedAt'];
  assertSame(written, 'POST /v1/pets', own);
  const ownPet = (index: number) => `/v1/pets/${String(written[index][1].id)}`;
  const rename = JSON.stringify({ name: 'Checked pet' });
  const each = async (method: string, body?: string) => {
    const answers: [string, Answer][] = [];
    for (const [index, [server, origin]] of servers.entries()) {
      answers.push([server, await answerOf(origin, token, method, ownPet(index), body)]);
    }
    assertSame(answers, `${method} /v1/pets/{its own pet}`, own);
  };
  await each('PUT', rename);
  await each('GET');
  console.log("bench: the raw baseline on its own schema answers with the app's JSON");
}

export async function run(): Promise<void> {
  await prepareDatabase();
  if (PROFILE) await mkdir(PROFILE_DIR, { recursive: true });
  if (ADOPTIONS) await ensureAdoptionPets(databaseUrl(), ADOPTION_PETS);
  if (IMPORTS) await ensureImportCategory(databaseUrl());
  const [appPort, basePort, rawPort, secondPort, thirdPort, variantPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const appEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl(),
    PORT: String(appPort),
    HOST: '127.0.0.1',
    JWT_SECRET,
    MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The bench signs the admin in with a password, without a second factor.
    MFA_REQUIRED_ROLES: '',
    ADMIN_PASSWORD,
    DATA_DIR: `/tmp/petstore-bench-${appPort}`,
    // Each customer's requests of a round stay open until the next round recycles them.
    ADOPTIONS_OPEN_PER_ADOPTER: '100',
    ...generousRateLimits('100000000'),
  };
  const children = [
    start('dist-bench/src/main.js', appEnv, [
      ...preloadOf('dist-bench/src/main.js'),
      ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
    ]),
    start('dist-bench/bench/baseline.js', {
      DATABASE_URL: databaseUrl(),
      PORT: String(basePort),
      JWT_SECRET,
    }),
    start('dist-bench/bench/raw-baseline.js', {
      DATABASE_URL: databaseUrl(),
      JWT_SECRET,
      PORT: String(rawPort),
    }),
  ];
  const origins: Partial<Record<Server, string>> & { app: string } = {
    app: `http://127.0.0.1:${appPort}`,
    baseline: `http://127.0.0.1:${basePort}`,
    raw: `http://127.0.0.1:${rawPort}`,
  };
  const sink = await otlpSinkFor(VARIANT);
  if (HAS_VARIANT) {
    console.log(`bench: variant ${COMPARE ?? ''} ${JSON.stringify(VARIANT)}`);
    const main = COMPARE ?? 'dist-bench/src/main.js';
    children.push(
      start(main, { ...appEnv, ...VARIANT, PORT: String(variantPort) }, preloadOf(main)),
    );
    origins.variant = `http://127.0.0.1:${variantPort}`;
  }
  const app = origins.app;
  const rows: Row[] = [];
  try {
    await Promise.all(Object.values(origins).map((origin) => waitForHttp(`${origin}/v1/pets`)));
    const auth = await tokens(`${app}/v1`);
    const categoryName = (
      await json<{ categories: { name: string }[] }>(
        await fetch(`${app}/v1/categories`, { headers: { Authorization: `Bearer ${auth[0]}` } }),
      )
    ).categories.find((c) => c.name.startsWith('Bulk'))!.name;
    const categoryId = (
      await json<{ categories: { id: number; name: string }[] }>(
        await fetch(`${app}/v1/categories`, { headers: { Authorization: `Bearer ${auth[0]}` } }),
      )
    ).categories.find((c) => c.name === categoryName)!.id;
    const filtered = `/v1/pets?limit=20&category=${encodeURIComponent(categoryName)}&status=available`;
    const randomId = () => 1 + Math.floor(Math.random() * PETS * 0.9);
    const byId: RequestSetup = (request) => {
      request.path = `/v1/pets/${randomId()}`;
    };
    const body = JSON.stringify({
      name: 'Bench pet',
      categoryId,
      status: 'available',
      tags: ['friendly', 'vaccinated'],
      photoUrls: ['https://images.example.com/pets/bench.jpg'],
    });
    // A new name every time: each PUT is a real change, recorded in the pet's history.
    let renames = 0;
    const renameById: RequestSetup = (request) => {
      byId(request);
      request.body = JSON.stringify({ name: `Renamed pet ${renames++}` });
    };
    const checked = await checkSameAnswers(origins, auth[0], body, filtered);
    if (RAW_OWN) {
      // Copied after the app's check wrote, so that the copy holds what the app holds.
      const ownUrl = databaseUrlOf(OWN_DATABASE);
      await mirrorAppDatabase(databaseUrl(), ownUrl);
      const rawOwnPort = await freePort();
      children.push(
        start('dist-bench/bench/raw-own-baseline.js', {
          DATABASE_URL: ownUrl,
          JWT_SECRET,
          PORT: String(rawOwnPort),
        }),
      );
      const rawOwn = `http://127.0.0.1:${rawOwnPort}`;
      await waitForHttp(`${rawOwn}/v1/pets`);
      await checkOwnSchemaAnswers({ app, rawOwn }, auth[0], checked, body, filtered);
      origins.rawOwn = rawOwn;
    }

    /** The same requests to the app, both baselines and the variant, in alternating rounds. */
    const everywhere = (path: string, options: Parameters<typeof measure>[2] = {}) => {
      const runs: Runs = { app: () => measure(app, path, { auth, ...options }) };
      for (const [server, origin] of Object.entries(origins) as [Server, string][]) {
        runs[server] = () => measure(origin, path, { auth, ...options });
      }
      return sideBySide(runs);
    };

    console.log('bench: warm-up');
    for (const origin of Object.values(origins)) {
      await measure(origin, filtered, { auth, seconds: 2 });
    }

    const createRow = async () => {
      const create = await everywhere('/v1/pets', { method: 'POST', body });
      rows.push({
        scenario: '5a. POST /pets (2 tags, 1 photo URL)',
        ...create,
        target: 'app ≥ 33% of baseline req/s',
        met: create.app.rps >= 0.33 * create.baseline!.rps,
      });
    };
    const byIdRow = async () => {
      console.log('bench: 4. pet by id');
      const one = await everywhere('/v1/pets/1', { setup: byId });
      rows.push({
        scenario: '4. GET /pets/{id}',
        ...one,
        target: 'app ≥ 30% of baseline req/s',
        met: one.app.rps >= 0.3 * one.baseline!.rps,
      });
    };
    const byKeyRow = async () => {
      console.log('bench: 4k. pet by id with a scoped API key');
      const created = await fetch(`${app}/v1/api-keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${auth[0]}` },
        body: JSON.stringify({ name: 'bench reader', mode: 'live', scopes: ['pets:read'] }),
      });
      const { key } = await json<{ key: string }>(created);
      const withKey: RequestSetup = (request) => {
        byId(request);
        request.headers = { [API_KEY_HEADER]: key };
      };
      const runs: Runs = { app: () => measure(app, '/v1/pets/1', { setup: withKey }) };
      if (origins.variant) {
        runs.variant = () => measure(origins.variant!, '/v1/pets/1', { setup: withKey });
      }
      const read = await sideBySide(runs);
      rows.push({
        scenario: '4k. GET /pets/{id}, API key with scopes [pets:read]',
        ...read,
        target: 'app ≥ 85% of variant req/s (a build without scopes)',
        met: read.variant ? read.app.rps >= 0.85 * read.variant.rps : undefined,
      });
    };
    const adoptionRows = async () => {
      const customers = await tokensOf(`${app}/v1`, CUSTOMERS, 'customer');
      await adoptionScenarios(
        {
          app,
          raw: origins.raw!,
          variant: origins.variant,
          databaseUrl: databaseUrl(),
          jwtSecret: JWT_SECRET,
          staff: auth,
          customers,
          pets: ADOPTION_PETS,
          measure,
          sideBySide,
        },
        rows,
      );
    };
    if (ONLY_BOUNDS) {
      await boundsScenarios(rows, app, auth);
      return;
    }
    if (ONLY_ADOPTIONS) {
      await adoptionRows();
      return;
    }
    if (ONLY_BY_ID) {
      await byIdRow();
      return;
    }
    if (ONLY_CREATE) {
      await createRow();
      return;
    }
    if (ONLY_BY_KEY) {
      await byKeyRow();
      return;
    }
    const exportRows = () => exportScenarios({ app, pid: children[0].pid!, token: auth[0] }, rows);
    if (ONLY_EXPORT) {
      await exportRows();
      return;
    }
    const importRows = () =>
      importScenarios(
        { app, databaseUrl: databaseUrl(), staff: auth, listPath: filtered, measure },
        rows,
      );
    if (ONLY_IMPORT) {
      await importRows();
      return;
    }
    if (ONLY_SEARCH) {
      await createRow();
      console.log('bench: 5c. create with and without the search triggers and indexes');
      // Five full-length rounds even with --quick: run to run, a round of creates varies by
      // more than the cap's 15 %.
      const creates = () =>
        afterCheckpoint(databaseUrl(), () =>
          measure(app, '/v1/pets', { auth, method: 'POST', body, seconds: UPKEEP_SECONDS }),
        );
      const upkeep = await sideBySide(
        { app: creates, variant: () => withoutSearchUpkeep(databaseUrl(), creates) },
        UPKEEP_ROUNDS,
      );
      rows.push({
        scenario: '5c. POST /pets, app with (app) and without (variant) search upkeep',
        ...upkeep,
        target: 'app ≥ 87% of variant req/s (≤ 15 % cost)',
        met: upkeep.app.rps >= upkeep.variant!.rps / 1.15,
      });
      await searchScenarios(rows, origins, auth);
      return;
    }

    console.log('bench: 1. filtered list');
    const list = await everywhere(filtered);
    rows.push({
      scenario: '1. GET /pets?category&status (JWT)',
      ...list,
      target: 'app ≥ 55% of baseline req/s',
      met: list.app.rps >= 0.55 * list.baseline!.rps,
    });

    console.log('bench: 2. unfiltered list');
    const unfiltered = await everywhere('/v1/pets?limit=20');
    rows.push({
      scenario: '2. GET /pets unfiltered (1M matches)',
      ...unfiltered,
      target: 'p50 ≤ 1.5 × filtered p50',
      met: unfiltered.app.p50 <= 1.5 * Math.max(list.app.p50, 1),
      note: `filtered p50 ${list.app.p50} ms`,
    });

    console.log('bench: 3. page 500 by cursor, and by offset');
    let cursor = '';
    for (let page = 1; page < 500; page++) {
      const res = await json<{ pagination: { nextCursor: string } }>(
        await fetch(
          `${app}/v1/pets?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          {
            headers: { Authorization: `Bearer ${auth[page % auth.length]}` },
          },
        ),
      );
      cursor = res.pagination.nextCursor;
    }
    const deep = await everywhere(`/v1/pets?limit=20&cursor=${encodeURIComponent(cursor)}`);
    rows.push({
      scenario: '3. GET /pets page 500 by cursor',
      ...deep,
      target: 'p50 ≤ 1.5 × page-1 p50',
      met: deep.app.p50 <= 1.5 * Math.max(unfiltered.app.p50, 1),
      note: `page 1 p50 ${unfiltered.app.p50} ms`,
    });
    const offset = await everywhere('/v1/pets?limit=20&offset=10000');
    rows.push({
      scenario: '3b. GET /pets?offset=10000',
      ...offset,
      target: 'none (OFFSET reads what it skips)',
    });

    await byIdRow();
    await byKeyRow();

    console.log('bench: 5. create and update');
    await createRow();
    const update = await everywhere('/v1/pets/1', {
      method: 'PUT',
      body: JSON.stringify({ name: 'Renamed pet' }),
      setup: renameById,
    });
    rows.push({
      scenario: '5b. PUT /pets/{id}',
      ...update,
      target: 'app ≥ 33% of baseline req/s',
      met: update.app.rps >= 0.33 * update.baseline!.rps,
    });

    console.log('bench: 6. guard stack without database work');
    const guards = await everywhere('/v1/rate-limit');
    rows.push({
      scenario: '6. GET /rate-limit (guards, no DB)',
      ...guards,
      target: 'app ≥ 60% of a bare endpoint',
      met: guards.app.rps >= 0.6 * guards.baseline!.rps,
      note: 'baselines: a fixed JSON from node:http',
    });

    console.log('bench: 8. tail at 64 connections');
    const tail = await everywhere(filtered, { connections: 64 });
    rows.push({
      scenario: '8. filtered list, 64 connections',
      ...tail,
      target: 'app p99 ≤ 2 × baseline p99',
      met: tail.app.p99 <= 2 * tail.baseline!.p99,
    });

    if (CORE) return;
    await searchScenarios(rows, origins, auth);
    await boundsScenarios(rows, app, auth);
    await adoptionRows();
    await exportRows();
    await importRows();

    if (!QUICK) {
      console.log('bench: 7. no decay over 60 s');
      const long = await measure(app, filtered, { auth, seconds: 60 });
      const first = long.perSecond.slice(0, 10).reduce((a, b) => a + b, 0);
      const last = long.perSecond.slice(-10).reduce((a, b) => a + b, 0);
      rows.push({
        scenario: '7. 60 s run: last 10 s vs first 10 s',
        app: long,
        target: 'last ≥ 90% of first',
        met: last >= 0.9 * first,
        note: `first ${first}, last ${last} requests`,
      });
    }

    console.log('bench: 9. two instances sharing Redis counters');
    const shared = {
      ...appEnv,
      REDIS_URL,
      REDIS_KEY_PREFIX: `bench-${appPort}:`,
      DATABASE_MIGRATIONS_RUN: 'false',
    };
    children.push(start('dist-bench/src/main.js', { ...shared, PORT: String(secondPort) }));
    children.push(start('dist-bench/src/main.js', { ...shared, PORT: String(thirdPort) }));
    const second = `http://127.0.0.1:${secondPort}`;
    const third = `http://127.0.0.1:${thirdPort}`;
    await Promise.all([waitForHttp(`${second}/v1/pets`), waitForHttp(`${third}/v1/pets`)]);
    const scaled = await sideBySide({
      app: async () => {
        const [a, b] = await Promise.all([
          measure(second, filtered, { auth, connections: CONNECTIONS / 2 }),
          measure(third, filtered, { auth, connections: CONNECTIONS / 2 }),
        ]);
        return {
          rps: a.rps + b.rps,
          p50: Math.max(a.p50, b.p50),
          p99: Math.max(a.p99, b.p99),
          bad: a.bad + b.bad,
          bytes: (a.bytes + b.bytes) / 2,
        };
      },
      baseline: () => measure(second, filtered, { auth }),
    });
    rows.push({
      scenario: '9. two processes vs one (Redis counters)',
      ...scaled,
      target: 'two ≥ 1.2 × one',
      met: scaled.app.rps >= 1.2 * scaled.baseline!.rps,
      note: '"app-SQL" columns = one app process',
    });
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await closeSink(sink);
    // What was measured before a failure is kept too.
    report(rows);
  }
}

/*
 * Issue 28's search rows, on the seed's data (`seed --pets`, src/cli/seed.ts): `labrador` is
 * the breed of 1 % of pets, `labrdor` its typo, `tag7` the tag of 1 % of pets. Override
 * with BENCH_SEARCH_* for other data. The app against both baselines (the raw one with the
 * simplest SQL for the same answer), once each row's requests are answered alike by all three.
 */
const SEARCH = {
  word: process.env.BENCH_SEARCH_WORD ?? 'labrador',
  typo: process.env.BENCH_SEARCH_TYPO ?? 'labrdor',
  tag: process.env.BENCH_SEARCH_TAG ?? 'tag7',
};
/**
 * The search rows' targets are latencies: one client at a time. At 32 connections on two
 * cores, a search's p50 is the wait behind 31 others (32 ÷ its req/s), not its cost.
 */
const SEARCH_CONNECTIONS = 1;
const SEARCH_SORTS = ['-createdAt', 'createdAt', 'name', '-name', 'age', '-age', 'relevance'];

async function searchScenarios(
  rows: Row[],
  origins: Partial<Record<Server, string>>,
  auth: string[],
): Promise<void> {
  const servers = { app: origins.app!, baseline: origins.baseline!, raw: origins.raw! };
  const app = servers.app;
  /** Fails the run unless both baselines answer `path` as the app does, then measures it. */
  const appAndBaselines = async (path: string) => {
    await sameAnswers(servers, auth[0], 'GET', path);
    const options = { auth, connections: SEARCH_CONNECTIONS };
    return sideBySide({
      app: () => measure(app, path, options),
      baseline: () => measure(servers.baseline, path, options),
      raw: () => measure(servers.raw, path, options),
    });
  };
  const row = async (scenario: string, path: string, p50: number) => {
    console.log(`bench: ${scenario}`);
    const measured = await appAndBaselines(path);
    // No answer within a round reads as p50 0: not met.
    const met = measured.app.rps > 0 && measured.app.p50 <= p50;
    rows.push({ scenario, ...measured, target: `p50 ≤ ${p50} ms`, met });
    return measured;
  };
  await row('11. GET /pets?q (one word), by relevance', `/v1/pets?q=${SEARCH.word}`, 50);
  await row('12. GET /pets?q (a typo)', `/v1/pets?q=${SEARCH.typo}`, 80);
  await row(
    '13. GET /pets?tag&minAge&sort=name',
    `/v1/pets?tag=${SEARCH.tag}&minAge=3&sort=name`,
    30,
  );
  await row('14. GET /pets/facets?q', `/v1/pets/facets?q=${SEARCH.word}`, 100);
  for (const sort of SEARCH_SORTS) {
    const base = `/v1/pets?limit=20&sort=${sort}${sort === 'relevance' ? `&q=${SEARCH.word}` : ''}`;
    let cursor = '';
    for (let page = 1; page < 50; page++) {
      const res = await json<{ pagination: { nextCursor: string } }>(
        await fetch(`${app}${base}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          headers: { Authorization: `Bearer ${auth[page % auth.length]}` },
        }),
      );
      cursor = res.pagination.nextCursor;
    }
    console.log(`bench: 15. sort=${sort}, page 1 and page 50 by cursor`);
    const first = await appAndBaselines(base);
    const fiftieth = await appAndBaselines(`${base}&cursor=${encodeURIComponent(cursor)}`);
    rows.push({
      scenario: `15. sort=${sort} page 50 by cursor`,
      ...fiftieth,
      target: 'p50 ≤ page-1 p50',
      met: fiftieth.app.rps > 0 && fiftieth.app.p50 <= Math.max(first.app.p50, 1),
      note: `page 1 p50 ${first.app.p50} ms`,
    });
  }
}

/** The vocabulary typo look-ups search (issue 41: 100,000 words at 1,000,000 pets). */
const VOCABULARY = 100_000;

/**
 * Adds made-up words to `search_words` until it holds VOCABULARY of them, as users naming
 * pets would; returns 10 words of the pets' names, which match many pets.
 */
async function adversarialVocabulary(): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO search_words (word)
       SELECT translate(substr(md5(n::text), 1, 6 + n % 5), '0123456789', 'ghijklmnop')
         FROM generate_series(1, $1::int - (SELECT count(*) FROM search_words)::int) n
       ON CONFLICT DO NOTHING`,
      [VOCABULARY],
    );
    const names = await client.query<{ word: string }>(
      `SELECT DISTINCT lower(split_part(name, ' ', 1)) AS word
         FROM (SELECT name FROM pets ORDER BY id LIMIT 1000) p
        WHERE name ~ '^[A-Za-z]+' ORDER BY 1 LIMIT 10`,
    );
    return names.rows.map((row) => row.word);
  } finally {
    await client.end();
  }
}

/**
 * Issue 41 (contract section 9): searches whose cost the data, not the input, decided. Each
 * is accepted, and must answer within 200 ms of database time or be cut and answered 503;
 * the 503s are counted in the note, not as failures. Then the plain list's p50 beside two of
 * them in flight, against its p50 alone.
 */
async function boundsScenarios(rows: Row[], app: string, auth: string[]): Promise<void> {
  const names = await adversarialVocabulary();
  const unknown = Array.from({ length: 10 }, (_, i) => `zq${'bcdfghjklm'[i]}xwvkyr`);
  const adversarial: [string, string][] = [
    ['q of 10 unknown words (3 looked up)', `/v1/pets?q=${encodeURIComponent(unknown.join(' '))}`],
    ['q of 10 names joined by or', `/v1/pets?q=${encodeURIComponent(names.join(' or '))}`],
    ['q of a common word and an exclusion', `/v1/pets?q=${encodeURIComponent('the -zzz')}`],
    ['facets without a filter', '/v1/pets/facets'],
  ];
  for (const [label, path] of adversarial) {
    console.log(`bench: 16. ${label}`);
    const { app: sample } = await sideBySide({
      app: () => measure(app, path, { auth, connections: SEARCH_CONNECTIONS }),
    });
    rows.push({
      scenario: `16. ${label}`,
      app: { ...sample, bad: 0 },
      target: 'p50 ≤ 250 ms (200 ms of database time, else 503)',
      met: sample.rps > 0 && sample.p50 <= 250,
      note: `${sample.bad} not 2xx (503: cut by the time-out)`,
    });
  }
  const list = '/v1/pets?limit=20';
  const [, [, storm]] = adversarial;
  console.log('bench: 17. GET /pets alone, then beside two adversarial searches');
  const alone = await sideBySide({ app: () => measure(app, list, { auth }) });
  const beside = await sideBySide({
    app: async () => {
      const [sample] = await Promise.all([
        measure(app, list, { auth }),
        measure(app, storm, { auth, connections: 2 }),
      ]);
      return sample;
    },
  });
  rows.push({
    scenario: '17. GET /pets beside two adversarial searches',
    ...beside,
    target: 'p50 ≤ 1.5 × p50 alone',
    met: beside.app.p50 <= 1.5 * Math.max(alone.app.p50, 1),
    note: `alone p50 ${alone.app.p50} ms`,
  });
}

function report(rows: Row[]): void {
  const fmt = (n: number | undefined) => (n === undefined ? '' : Math.round(n));
  const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) : '');
  const latency = (s: Sample | undefined) => (s ? `${s.p50}/${s.p99}` : '');
  console.table(
    rows.map((row) => ({
      scenario: row.scenario,
      'app req/s': fmt(row.app.rps),
      'app-SQL req/s': fmt(row.baseline?.rps),
      'raw req/s': fmt(row.raw?.rps),
      'raw-own req/s': fmt(row.rawOwn?.rps),
      'app/app-SQL': ratio(row.app.rps, row.baseline?.rps),
      'app/raw': ratio(row.app.rps, row.raw?.rps),
      'app/raw-own': ratio(row.app.rps, row.rawOwn?.rps),
      'app p50/p99 ms': latency(row.app),
      'app-SQL p50/p99 ms': latency(row.baseline),
      'raw p50/p99 ms': latency(row.raw),
      'raw-own p50/p99 ms': latency(row.rawOwn),
      'p99 app/raw': ratio(row.app.p99, row.raw?.p99),
      'p99 app/raw-own': ratio(row.app.p99, row.rawOwn?.p99),
      'bytes/response app/app-SQL/raw/raw-own': [row.app, row.baseline, row.raw, row.rawOwn]
        .map((s) => (s ? fmt(s.bytes) : '-'))
        .join('/'),
      ...(HAS_VARIANT && {
        'variant req/s': fmt(row.variant?.rps),
        'app/variant': ratio(row.app.rps, row.variant?.rps),
        'variant p50/p99 ms': latency(row.variant),
      }),
      target: row.target,
      met: row.met === undefined ? '' : row.met ? 'yes' : 'NO',
      note: row.note ?? '',
    })),
  );
  const bad = rows.reduce(
    (sum, row) =>
      sum +
      [row.app, row.baseline, row.raw, row.rawOwn, row.variant].reduce(
        (n, s) => n + (s?.bad ?? 0),
        0,
      ),
    0,
  );
  console.log(
    bad === 0 ? 'bench: every response was 2xx' : `bench: ${bad} responses were not 2xx or failed`,
  );
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  void mkdir('bench/results', { recursive: true })
    .then(() =>
      writeFile(
        file,
        JSON.stringify(
          { quick: QUICK, pets: PETS, rounds: ROUNDS, seconds: SECONDS, rows },
          null,
          2,
        ),
      ),
    )
    .then(() => console.log(`bench: results written to ${file}`));
  if (bad > 0) process.exitCode = 1;
}
