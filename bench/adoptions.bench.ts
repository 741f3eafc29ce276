import { deepStrictEqual } from 'node:assert/strict';
import pg from 'pg';
import { encodeAdoptionCursor } from '../src/adoptions/adoption-cursor.js';
import { CursorSigner } from '../src/common/dto/page-cursor.js';
import {
  json,
  medianSample,
  withClient,
  type LoadOptions,
  type RequestSetup,
  type Sample,
} from './load.js';

/**
 * Issue 43's adoption rows of `npm run bench` (`--only=adoptions`, and in the full run): a
 * request and a completion against the raw baseline doing the same writes, the staff's list
 * at 100,000 adoptions at page 1 and at deep cursors, and 10,000 holds ending at the same
 * moment beside the list. Their data is their own: pets of the category `Adoption bench`
 * (no other row reads that category, and every other row's pets have smaller ids), the
 * adoptions of those pets, and the hold-expiry jobs of those adoptions; each run starts by
 * putting them back to 100,000 closed adoptions and available pets, and ends with none open.
 */
export const ADOPTION_CATEGORY = 'Adoption bench';
const PET_NAME = 'Adoption bench pet';
/** What marks the 100,000 closed adoptions the list rows read (kept from run to run). */
const HISTORY_MESSAGE = 'Adoption bench history';
const HISTORY = 100_000;
const EXPIRING = 10_000;
const HOLD_EXPIRY_QUEUE = 'adoptions.hold-expiry';
/** The raw baseline's completion mails' consumer, which no process runs (raw-baseline.ts). */
const RAW_MAIL_CONSUMER = 'bench.raw-mail';
/** The list's target is a latency: one client, as the search rows (at 32 it is the queue's). */
const LIST_CONNECTIONS = 1;
/** How long the hold expiries may take, and how long the bench waits for them at most. */
const EXPIRY_TARGET_MS = 60_000;
const EXPIRY_WAIT_MS = 120_000;
const EXPIRY_CHUNK_SECONDS = 2;
/** `--only=adoptions --a2`: row A2 alone, to compare the expiries' code before and after. */
const A2_ONLY = process.argv.includes('--a2');
/** `--if-match`: row A4 again with `If-Match: *`, which the app checks on the adoption's row. */
const IF_MATCH = process.argv.includes('--if-match');
/** `--writes`: rows A3 and A4 alone (A1 and A2 take minutes, and A2 leaves expiries running). */
const WRITES_ONLY = process.argv.includes('--writes');

export interface AdoptionRow {
  scenario: string;
  app: Sample;
  raw?: Sample;
  /** The compared build (BENCH_COMPARE_APP or `--variant`), on the write rows. */
  variant?: Sample;
  target: string;
  met?: boolean;
  note?: string;
}

type Measure = (origin: string, path: string, options?: Partial<LoadOptions>) => Promise<Sample>;
type SideBySide = (runs: {
  app: () => Promise<Sample>;
  raw?: () => Promise<Sample>;
  variant?: () => Promise<Sample>;
}) => Promise<{ app: Sample; raw?: Sample; variant?: Sample }>;

export interface AdoptionBench {
  app: string;
  raw: string;
  /** The compared build's origin, if any: it answers the write rows in the same rounds. */
  variant?: string;
  databaseUrl: string;
  jwtSecret: string;
  /** Staff tokens (role `user`) and customer tokens. */
  staff: string[];
  customers: string[];
  /** Pets of the category: more than one round of requests of the fastest server takes. */
  pets: number;
  measure: Measure;
  sideBySide: SideBySide;
}

/** The category and `count` pets of it, available, made once and kept (before the servers start: the raw baseline reads categories once). */
export async function ensureAdoptionPets(databaseUrl: string, count: number): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      `INSERT INTO categories (name, description)
       SELECT $1::text, 'Pets the adoption rows of the bench request, complete and expire'
        WHERE NOT EXISTS (SELECT 1 FROM categories WHERE lower(name) = lower($1))`,
      [ADOPTION_CATEGORY],
    );
    const { rows } = await client.query<{ missing: number }>(
      `SELECT $2::int - count(p.id)::int AS missing
         FROM categories c LEFT JOIN pets p ON p.category_id = c.id
        WHERE lower(c.name) = lower($1) GROUP BY c.id`,
      [ADOPTION_CATEGORY, count],
    );
    if (rows[0].missing <= 0) return;
    console.log(`bench: adding ${rows[0].missing} pets of ${ADOPTION_CATEGORY}`);
    await client.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT $1::text, (SELECT id FROM categories WHERE lower(name) = lower($2)),
              'available'::pet_status
         FROM generate_series(1, $3::int)`,
      [PET_NAME, ADOPTION_CATEGORY, rows[0].missing],
    );
  });
}

/** The user id a token names (its `sub`). */
const userIdOf = (token: string) =>
  Number(
    (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub,
  );

/** The bench's adoptions and pets, with what a run needs to know of them. */
class AdoptionData {
  readonly petIds: number[] = [];
  private categoryId = 0;

  constructor(private readonly client: pg.Client) {}

  async load(count: number): Promise<void> {
    const category = await this.client.query<{ id: number }>(
      'SELECT id FROM categories WHERE lower(name) = lower($1)',
      [ADOPTION_CATEGORY],
    );
    this.categoryId = Number(category.rows[0].id);
    const pets = await this.client.query<{ id: string }>(
      'SELECT id FROM pets WHERE category_id = $1 ORDER BY id LIMIT $2',
      [this.categoryId, count],
    );
    this.petIds.push(...pets.rows.map((row) => Number(row.id)));
  }

  /**
   * Every open adoption of the bench's pets closed (cancelled), its pet available and its
   * hold's job gone: the state every round of writes starts from.
   */
  async recycle(): Promise<void> {
    await this.settle();
    await this.client.query('BEGIN');
    try {
      await this.client.query(
        `UPDATE adoptions SET status = 'cancelled', hold_expires_at = NULL, version = version + 1
          WHERE status IN ('requested', 'approved')
            AND pet_id IN (SELECT id FROM pets WHERE category_id = $1)`,
        [this.categoryId],
      );
      await this.client.query(
        `UPDATE pets SET status = 'available' WHERE category_id = $1 AND status <> 'available'`,
        [this.categoryId],
      );
      await this.client.query('COMMIT');
    } catch (error) {
      // The client stays usable, and the error is this one, not the next statement's.
      await this.client.query('ROLLBACK');
      throw error;
    }
    await this.client.query(
      `DELETE FROM outbox_messages o
        WHERE consumer = $1
          AND NOT EXISTS (SELECT 1 FROM adoptions a
                           WHERE a.id = (o.event->>'adoptionId')::bigint
                             AND a.status IN ('requested', 'approved'))`,
      [HOLD_EXPIRY_QUEUE],
    );
    await this.client.query(`DELETE FROM outbox_messages WHERE consumer = $1`, [RAW_MAIL_CONSUMER]);
    await this.client.query('VACUUM ANALYZE adoptions');
  }

  /**
   * Waits (30 s at most) until no other session of the database is in a transaction: the
   * load generator stops without waiting for the answers, and on a busy machine a server
   * still writes the last requests of a round while the next one recycles.
   */
  private async settle(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { rows } = await this.client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND state IN ('active', 'idle in transaction')`,
      );
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Back to the 100,000 closed adoptions of the history (made again unless all there), by the
   * staff `adopterIds`, newest last, one every 5 minutes; every other adoption of the bench's
   * pets deleted.
   */
  async reset(adopterIds: number[], staffId: number): Promise<void> {
    await this.recycle();
    await this.client.query(
      `DELETE FROM adoptions
        WHERE message IS DISTINCT FROM $2 AND pet_id IN (SELECT id FROM pets WHERE category_id = $1)`,
      [this.categoryId, HISTORY_MESSAGE],
    );
    const { rows } = await this.client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM adoptions WHERE message = $1',
      [HISTORY_MESSAGE],
    );
    if (rows[0].n !== HISTORY) {
      console.log(`bench: writing ${HISTORY} closed adoptions`);
      await this.client.query('DELETE FROM adoptions WHERE message = $1', [HISTORY_MESSAGE]);
      await this.client.query(
        `INSERT INTO adoptions (pet_id, adopter_id, status, message, decided_by_id, reason,
                                created_at, updated_at)
         SELECT ($1::bigint[])[1 + n % cardinality($1::bigint[])],
                ($2::bigint[])[1 + n % cardinality($2::bigint[])],
                s.status, $4::text, CASE WHEN s.status <> 'cancelled' THEN $3::bigint END,
                CASE WHEN s.status = 'rejected' THEN 'Not a match for this home' END,
                t.at, t.at + interval '2 days'
           FROM generate_series(1, $5::int) n,
                LATERAL (SELECT (ARRAY['completed', 'returned', 'cancelled', 'rejected',
                                       'expired'])[1 + n % 5]::adoption_status AS status) s,
                LATERAL (SELECT now() - ($5::int - n) * interval '5 minutes' AS at) t
          ORDER BY n`,
        [this.petIds, adopterIds, staffId, HISTORY_MESSAGE, HISTORY],
      );
    }
    await this.client.query('VACUUM ANALYZE adoptions');
  }

  /** The id of the adoption `depth` places from the newest (0: the newest). */
  async idAtDepth(depth: number): Promise<number> {
    const { rows } = await this.client.query<{ id: string }>(
      'SELECT id FROM adoptions ORDER BY id DESC OFFSET $1 LIMIT 1',
      [depth],
    );
    return Number(rows[0].id);
  }

  /**
   * Open adoptions of `petIds` in `status`, their pets pending, as requests (and approvals)
   * would have left them; for `requested`, with the hold `holdExpiresAt` and its job due
   * then, as the app queues it. Their ids, in the pets' order.
   */
  async open(
    petIds: number[],
    adopterIds: number[],
    status: 'requested' | 'approved',
    holdExpiresAt: Date,
    decidedById: number | null,
  ): Promise<number[]> {
    await this.client.query('BEGIN');
    await this.client.query(`UPDATE pets SET status = 'pending' WHERE id = ANY($1::bigint[])`, [
      petIds,
    ]);
    const { rows } = await this.client.query<{ id: string }>(
      `INSERT INTO adoptions (pet_id, adopter_id, status, hold_expires_at, decided_by_id)
       SELECT pet_id, ($2::bigint[])[1 + (n - 1) % cardinality($2::bigint[])],
              $3::adoption_status, $4::timestamptz, $5::bigint
         FROM unnest($1::bigint[]) WITH ORDINALITY AS p(pet_id, n)
        ORDER BY n
       RETURNING id`,
      [petIds, adopterIds, status, holdExpiresAt, decidedById],
    );
    const ids = rows.map((row) => Number(row.id));
    if (status === 'requested') {
      await this.client.query(
        `INSERT INTO outbox_messages (consumer, subject, event_type, event, next_attempt_at)
         SELECT $1::text, 'adoption:' || id, 'adoption.hold_expiry',
                jsonb_build_object('type', 'adoption.hold_expiry', 'subject', 'adoption:' || id,
                                   'adoptionId', id, 'holdExpiresAt', $3::text),
                $4::timestamptz
           FROM unnest($2::bigint[]) AS id`,
        [HOLD_EXPIRY_QUEUE, ids, holdExpiresAt.toISOString(), holdExpiresAt],
      );
    }
    await this.client.query('COMMIT');
    await this.client.query('VACUUM ANALYZE adoptions');
    return ids;
  }

  /** How many of `ids` are still open, and when the last of the others was written. */
  async progress(ids: number[]): Promise<{ open: number; lastClosedAt: Date | null }> {
    const { rows } = await this.client.query<{ open: number; last: Date | null }>(
      `SELECT count(*) FILTER (WHERE status IN ('requested', 'approved'))::int AS open,
              max(updated_at) FILTER (WHERE status NOT IN ('requested', 'approved')) AS last
         FROM adoptions WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    return { open: rows[0].open, lastClosedAt: rows[0].last };
  }
}

/**
 * The app's answer to a write, once the raw baseline's to the same write on another of the
 * bench's pets (all of one name) is checked to be the same JSON but for what differs between
 * two writes: the adoption's and pet's ids and the times.
 */
async function sameAdoption(
  bench: AdoptionBench,
  token: string,
  [appPath, rawPath]: [string, string],
  [appBody, rawBody]: [string | undefined, string | undefined],
): Promise<void> {
  const answer = async (origin: string, path: string, body?: string) =>
    json<Record<string, unknown> & { pet: Record<string, unknown> }>(
      await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body && { 'Content-Type': 'application/json' }),
        },
        body,
      }),
    );
  const app = await answer(bench.app, appPath, appBody);
  const raw = await answer(bench.raw, rawPath, rawBody);
  const own = ['id', 'holdExpiresAt', 'createdAt', 'updatedAt'];
  const fromApp = Object.fromEntries(own.filter((key) => key in app).map((k) => [k, app[k]]));
  deepStrictEqual(
    { ...raw, ...fromApp, pet: { ...raw.pet, id: app.pet.id } },
    app,
    `raw differs on POST ${rawPath}`,
  );
}

/** Adds each row to `rows` once measured: a failure keeps those before it. */
export async function adoptionScenarios(bench: AdoptionBench, rows: AdoptionRow[]): Promise<void> {
  const client = new pg.Client({ connectionString: bench.databaseUrl });
  await client.connect();
  const data = new AdoptionData(client);
  try {
    await data.load(bench.pets);
    const staffIds = bench.staff.map(userIdOf);
    const customerIds = bench.customers.map(userIdOf);
    await data.reset(staffIds, staffIds[0]);
    if (!A2_ONLY && !WRITES_ONLY) await listRows(bench, data, rows);
    if (!WRITES_ONLY) await expiryRow(bench, data, customerIds, rows);
    if (!A2_ONLY) await writeRows(bench, data, customerIds, staffIds, rows);
  } finally {
    // No open adoption left behind, nor its job.
    await data.recycle().finally(() => client.end());
  }
}

const list = (cursor?: string) =>
  `/v1/adoptions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

async function listRows(bench: AdoptionBench, data: AdoptionData, rows: AdoptionRow[]) {
  const signer = new CursorSigner(bench.jwtSecret);
  const depths = [0, HISTORY / 2, HISTORY - 20];
  for (const depth of depths) {
    const cursor =
      depth === 0
        ? undefined
        : encodeAdoptionCursor(signer, { beforeId: await data.idAtDepth(depth - 1) });
    const path = list(cursor);
    // The cursor is the app's own: the page starts where it says.
    const page = await json<{ adoptions: { id: number }[] }>(
      await fetch(`${bench.app}${path}`, {
        headers: { Authorization: `Bearer ${bench.staff[0]}` },
      }),
    );
    if (page.adoptions[0]?.id !== (await data.idAtDepth(depth))) {
      throw new Error(`GET ${path} does not start at depth ${depth}`);
    }
    const label = depth === 0 ? 'page 1' : `cursor ${depth.toLocaleString('en')} deep`;
    console.log(`bench: A1. GET /adoptions (staff), ${label}`);
    const { app } = await bench.sideBySide({
      app: () =>
        bench.measure(bench.app, path, { auth: bench.staff, connections: LIST_CONNECTIONS }),
    });
    rows.push({
      scenario: `A1. GET /adoptions staff, 100k, ${label} (1 conn.)`,
      app,
      target: 'p50 ≤ 10 ms',
      met: app.rps > 0 && app.p50 <= 10,
    });
  }
}

/**
 * 10,000 requested adoptions whose holds end at the same moment (their jobs due then, as the
 * app queues them), the list measured before it and, in chunks, from then until every one is
 * expired.
 */
async function expiryRow(
  bench: AdoptionBench,
  data: AdoptionData,
  customerIds: number[],
  rows: AdoptionRow[],
) {
  console.log(`bench: A2. ${EXPIRING} holds ending at once, beside the list`);
  const path = list();
  const options = { auth: bench.staff, connections: LIST_CONNECTIONS };
  const pets = data.petIds.slice(0, EXPIRING);
  // Due once the list has been measured before it, with the rows already there.
  const due = new Date(Date.now() + 60_000);
  const ids = await data.open(pets, customerIds, 'requested', due, null);
  const before = (await bench.sideBySide({ app: () => bench.measure(bench.app, path, options) }))
    .app;
  const wait = due.getTime() - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const during: Sample[] = [];
  let state = await data.progress(ids);
  while (state.open > 0 && Date.now() < due.getTime() + EXPIRY_WAIT_MS) {
    during.push(
      await bench.measure(bench.app, path, { ...options, seconds: EXPIRY_CHUNK_SECONDS }),
    );
    state = await data.progress(ids);
  }
  const tookMs = state.open === 0 ? state.lastClosedAt!.getTime() - due.getTime() : Infinity;
  const app = medianSample(during);
  rows.push({
    scenario: `A2. ${EXPIRING.toLocaleString('en')} holds due at once; list p50 meanwhile`,
    app,
    target: 'all expired ≤ 60 s; list p50 ≤ 1.5 × before',
    met: tookMs <= EXPIRY_TARGET_MS && app.p50 <= 1.5 * Math.max(before.p50, 1),
    note:
      (state.open === 0
        ? `all expired in ${(tookMs / 1000).toFixed(1)} s; `
        : `${EXPIRING - state.open} expired in ${EXPIRY_WAIT_MS / 1000} s ` +
          `(${((EXPIRING - state.open) / (EXPIRY_WAIT_MS / 1000)).toFixed(0)}/s); `) +
      `list p50/p99 before ${before.p50}/${before.p99} ms, during ${app.p50}/${app.p99} ms ` +
      `(${during.length} chunks of ${EXPIRY_CHUNK_SECONDS} s)`,
  });
}

/**
 * The request and the completion, app against raw, in alternating rounds, each round from
 * recycled pets: every request takes the next available pet (more pets than a round's
 * requests), every completion the next of as many approved adoptions, made before the round.
 */
async function writeRows(
  bench: AdoptionBench,
  data: AdoptionData,
  customerIds: number[],
  staffIds: number[],
  rows: AdoptionRow[],
) {
  const pets = data.petIds;
  const request = (petId: number) => JSON.stringify({ petId });
  const complete = (id: number) => `/v1/adoptions/${id}/complete`;
  const hold = () => new Date(Date.now() + 72 * 3_600_000);

  await data.recycle();
  await sameAdoption(
    bench,
    bench.customers[0],
    ['/v1/adoptions', '/v1/adoptions'],
    [request(pets[0]), request(pets[1])],
  );
  const [first, second] = await data.open(
    pets.slice(2, 4),
    customerIds.slice(0, 1),
    'approved',
    hold(),
    staffIds[0],
  );
  await sameAdoption(
    bench,
    bench.staff[0],
    [complete(first), complete(second)],
    [undefined, undefined],
  );
  console.log("bench: the raw baseline answers a request and a completion with the app's JSON");

  console.log('bench: A3. POST /adoptions (customer)');
  const requests = (origin: string) => async () => {
    await data.recycle();
    let next = 0;
    const setup: RequestSetup = (req) => {
      req.body = request(pets[next++]);
    };
    return bench.measure(origin, '/v1/adoptions', {
      auth: bench.customers,
      method: 'POST',
      body: request(pets[0]),
      setup,
    });
  };
  const requested = await bench.sideBySide({
    app: requests(bench.app),
    raw: requests(bench.raw),
    ...(bench.variant && { variant: requests(bench.variant) }),
  });
  rows.push({
    scenario: 'A3. POST /adoptions (customer)',
    ...requested,
    target: 'app ≥ 0.40 of raw req/s',
    met: requested.app.rps >= 0.4 * requested.raw!.rps,
  });

  console.log('bench: A4. POST /adoptions/{id}/complete (staff)');
  const completions =
    (origin: string, ifMatch = false) =>
    async () => {
      await data.recycle();
      const approved = await data.open(pets, customerIds, 'approved', hold(), staffIds[0]);
      let next = 0;
      const setup: RequestSetup = (req) => {
        req.path = complete(approved[next++]);
        // Any current version: the app reads the row for its tag all the same; raw ignores it.
        if (ifMatch && req.headers) req.headers['if-match'] = '*';
      };
      return bench.measure(origin, complete(approved[0]), {
        auth: bench.staff,
        method: 'POST',
        setup,
      });
    };
  const completed = await bench.sideBySide({
    app: completions(bench.app),
    raw: completions(bench.raw),
    ...(bench.variant && { variant: completions(bench.variant) }),
  });
  rows.push({
    scenario: 'A4. POST /adoptions/{id}/complete (staff)',
    ...completed,
    target: 'app ≥ 0.40 of raw req/s',
    met: completed.app.rps >= 0.4 * completed.raw!.rps,
  });
  if (!IF_MATCH) return;

  console.log('bench: A4b. POST /adoptions/{id}/complete with If-Match: * (staff)');
  const matched = await bench.sideBySide({
    app: completions(bench.app, true),
    raw: completions(bench.raw, true),
    ...(bench.variant && { variant: completions(bench.variant, true) }),
  });
  rows.push({
    scenario: 'A4b. A4 with If-Match: *',
    ...matched,
    target: 'app ≥ 0.40 of raw req/s',
    met: matched.app.rps >= 0.4 * matched.raw!.rps,
  });
}
