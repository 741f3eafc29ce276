import pg from 'pg';
import { json, medianSample, withClient, type LoadOptions, type Sample } from './load.js';

/**
 * Issue 44's import rows of `npm run bench` (`--only=import`, and in the full run): a CSV of
 * 100,000 valid pets through the real API (`POST /v1/pets/imports`, then
 * `GET /v1/pets/imports/{id}` until it ends), with row 1's filtered list measured before it
 * and, in chunks, while it runs. Create mode, each row with its own externalId: the created
 * pets are of the category `Import bench` (no other row reads it), and are deleted with their
 * history before each run and after it, so the database stays the seed's from run to run.
 * Targets: the import finished within 60 s of its request, the list's p50 meanwhile at most
 * 2 × its p50 alone.
 */
export const IMPORT_CATEGORY = 'Import bench';
const ROWS = 100_000;
const TARGET_MS = 60_000;
/** How long the bench follows the import at most: past the target, to report its rate. */
const WAIT_MS = 300_000;
/** The list's target is a latency: one client, as the adoption rows' A2. */
const LIST_CONNECTIONS = 1;
const LIST_CHUNK_SECONDS = 2;

export interface ImportRow {
  scenario: string;
  app: Sample;
  target: string;
  met?: boolean;
  note?: string;
}

type Measure = (origin: string, path: string, options?: Partial<LoadOptions>) => Promise<Sample>;

export interface ImportBench {
  app: string;
  databaseUrl: string;
  /** Staff tokens (role `user`, scope `pets:write`). */
  staff: string[];
  /** Row 1's filtered list. */
  listPath: string;
  measure: Measure;
}

interface ImportBody {
  status: string;
  counts: { rows: number; valid: number; invalid: number; created: number };
  errors: unknown[];
  createdAt: string;
  finishedAt?: string;
}

/** The category, made once and kept (before the app starts), and no pet of it left. */
export async function ensureImportCategory(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      `INSERT INTO categories (name, description)
       SELECT $1::text, 'Pets the import rows of the bench create, deleted after each run'
        WHERE NOT EXISTS (SELECT 1 FROM categories WHERE lower(name) = lower($1))`,
      [IMPORT_CATEGORY],
    );
    await removeImported(client);
  });
}

/** Pets removed per statement (see removeImported). */
const REMOVE_BATCH = 1_000;

/**
 * The pets a run imported and their history (the counts follow by their triggers), in
 * statements of REMOVE_BATCH pets: in one statement, the counters of the rows' two tags
 * would be updated once per pet in one transaction, each update a row version more for the
 * next to walk (95,000 pets took minutes and did not finish).
 */
async function removeImported(client: pg.Client): Promise<void> {
  for (;;) {
    const { rowCount } = await client.query(
      `WITH batch AS (
         SELECT id FROM pets
          WHERE category_id = (SELECT id FROM categories WHERE lower(name) = lower($1))
          LIMIT $2
       ), history AS (
         DELETE FROM pet_events WHERE pet_id IN (SELECT id FROM batch)
       )
       DELETE FROM pets WHERE id IN (SELECT id FROM batch)`,
      [IMPORT_CATEGORY, REMOVE_BATCH],
    );
    if (rowCount === 0) return;
  }
}

/** A CSV of ROWS valid pets, each with tags and its own externalId (looked up on validation). */
function importFile(): Blob {
  const lines = ['name,category,status,tags,age,breed,externalId'];
  for (let i = 1; i <= ROWS; i += 1) {
    lines.push(
      `Imported pet ${i},${IMPORT_CATEGORY},available,imported|bench,${i % 15},Labrador,import-bench-${i}`,
    );
  }
  return new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' });
}

const finished = (body: ImportBody) => ['succeeded', 'failed', 'cancelled'].includes(body.status);

/** Rows I1 and I2. */
export async function importScenarios(bench: ImportBench, rows: ImportRow[]): Promise<void> {
  console.log(`bench: I. import of ${ROWS.toLocaleString('en')} pets, beside the list`);
  const headers = { Authorization: `Bearer ${bench.staff[0]}` };
  const options = { auth: bench.staff, connections: LIST_CONNECTIONS };
  const file = importFile();
  try {
    const alone = await bench.measure(bench.app, bench.listPath, options);

    const form = new FormData();
    form.set('mode', 'create');
    form.set('file', file, 'pets.csv');
    const requestedAt = Date.now();
    const accepted = await fetch(`${bench.app}/v1/pets/imports`, {
      method: 'POST',
      headers,
      body: form,
    });
    if (accepted.status !== 202) {
      throw new Error(`import: ${accepted.status} ${await accepted.text()}`);
    }
    const { statusUrl } = await json<{ statusUrl: string }>(accepted);
    const read = async () => json<ImportBody>(await fetch(`${bench.app}${statusUrl}`, { headers }));

    const during: Sample[] = [];
    let state = await read();
    while (!finished(state) && Date.now() < requestedAt + WAIT_MS) {
      during.push(
        await bench.measure(bench.app, bench.listPath, {
          ...options,
          seconds: LIST_CHUNK_SECONDS,
        }),
      );
      state = await read();
    }
    // Given up on: stopped, so that the clean-up below is not raced by its later batches.
    if (!finished(state)) await fetch(`${bench.app}${statusUrl}`, { method: 'DELETE', headers });
    const tookMs = state.finishedAt ? Date.parse(state.finishedAt) - requestedAt : Infinity;
    const seconds = tookMs / 1000;
    const { created } = state.counts;
    const rowsPerSecond = state.finishedAt
      ? created / seconds
      : created / ((Date.now() - requestedAt) / 1000);
    rows.push({
      scenario: `I1. POST /pets/imports, ${ROWS.toLocaleString('en')} rows (create), to its end`,
      app: {
        rps: rowsPerSecond,
        p50: Math.round(tookMs),
        p99: 0,
        bad: ROWS - created,
        bytes: file.size,
      },
      target: `all created ≤ ${TARGET_MS / 1000} s`,
      met: state.status === 'succeeded' && created === ROWS && tookMs <= TARGET_MS,
      note:
        `${state.status}: ${created.toLocaleString('en')} created ` +
        (state.finishedAt ? `in ${seconds.toFixed(1)} s` : `in ${WAIT_MS / 1000} s, unfinished`) +
        ` = ${rowsPerSecond.toFixed(0)} rows/s; ${(file.size / 2 ** 20).toFixed(1)} MB of CSV` +
        (state.errors.length > 0 ? `; first error ${JSON.stringify(state.errors[0])}` : ''),
    });

    const app = medianSample(during);
    rows.push({
      scenario: "I2. GET /pets?category&status (row 1's list, 1 client) beside the import",
      app,
      target: 'p50 ≤ 2 × p50 alone',
      met: during.length > 0 && app.p50 <= 2 * Math.max(alone.p50, 1),
      note:
        `alone p50/p99 ${alone.p50}/${alone.p99} ms, during ${app.p50}/${app.p99} ms ` +
        `(${during.length} chunks of ${LIST_CHUNK_SECONDS} s)`,
    });
  } finally {
    await withClient(bench.databaseUrl, removeImported);
  }
}
