import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from '@jest/globals';
import pg from 'pg';
import { Agent, FormData, fetch, type RequestInit } from 'undici';
import { startCluster, type Cluster, type ClusterOptions } from '../../scripts/cluster.js';
import {
  AUTHORIZATION_HEADER,
  IDEMPOTENCY_KEY_HEADER,
} from '../../src/common/http/header-names.js';
import { messageOf } from '../../src/common/errors/message-of.js';
import { pngImage } from '../support/images.js';
import { generousRateLimits } from '../support/rate-limits.js';
import { waitFor } from '../support/wait.js';

/** Needs a PostgreSQL server and Redis: `DATABASE_URL=… REDIS_URL=… npm run test:cluster`. */
export const withServers =
  process.env.DATABASE_URL && process.env.REDIS_URL ? describe : describe.skip;

/** What a test file may choose of its cluster. */
export type TestClusterOptions = Pick<ClusterOptions, 'followReadiness' | 'port'>;

/**
 * A cluster of the file's own, started before its tests (with `env`'s settings) and stopped
 * after them; the function returned gives it to a test.
 */
export function useCluster(
  env: Record<string, string> = {},
  options: TestClusterOptions = {},
): () => TestCluster {
  let started: TestCluster | undefined;
  beforeAll(async () => {
    started = await TestCluster.start(env, options);
  }, 240_000);
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('The cluster did not start');
    return started;
  };
}

// A connection per request: a keep-alive connection to nginx is closed when a reload retires
// its worker, and a request written onto it at that instant fails before nginx reads it.
// Counting those would measure this client, not nginx and the instances.
const agent = new Agent({ pipelining: 0 });

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A line of the cluster's log (readiness watcher, instance exits and restarts), and when. */
export interface NginxChange {
  at: number;
  line: string;
}

/** A cluster of the test file's own, on a fresh database; `stop()` removes both. */
export class TestCluster {
  private token?: string;

  private constructor(
    readonly cluster: Cluster,
    readonly db: pg.Pool,
    private readonly drop: () => Promise<void>,
    /** Each time the watcher took an instance out of nginx or put it back, or one exited. */
    readonly nginxChanges: NginxChange[],
  ) {}

  static async start(
    env: Record<string, string> = {},
    options: TestClusterOptions = {},
  ): Promise<TestCluster> {
    const server = new URL(process.env.DATABASE_URL!);
    const name = `petstore_cluster_${randomBytes(6).toString('hex')}`;
    const url = new URL(server);
    url.pathname = `/${name}`;
    const nginxChanges: NginxChange[] = [];
    const dropDatabase = async () => {
      const admin = new pg.Client({ connectionString: server.toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
    let cluster: Cluster;
    try {
      cluster = await startCluster({
        port: 0,
        ...options,
        databaseUrl: url.toString(),
        redisUrl: process.env.REDIS_URL,
        env: { ...generousRateLimits(), LOG_LEVEL: 'warn', ...env },
        log: (line) => nginxChanges.push({ at: performance.now(), line }),
      });
    } catch (error) {
      await dropDatabase();
      throw error;
    }
    const db = new pg.Pool({ connectionString: url.toString(), max: 2 });
    const drop = async () => {
      await db.end();
      await dropDatabase();
    };
    return new TestCluster(cluster, db, drop, nginxChanges);
  }

  async stop(): Promise<void> {
    await this.cluster.stop();
    await this.drop();
  }

  /** A request through nginx (or `base`) as the bootstrap admin; never throws on a status. */
  async request(path: string, init: RequestInit = {}, base = this.cluster.url): Promise<Answer> {
    this.token ??= await this.login();
    return send(`${base}${path}`, {
      ...init,
      headers: { [AUTHORIZATION_HEADER]: `Bearer ${this.token}`, ...(init.headers as object) },
    });
  }

  json(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
    return this.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  private async login(): Promise<string> {
    const res = await fetch(`${this.cluster.url}/v1/auth/login`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: this.cluster.adminPassword }),
    });
    const body = (await res.json()) as { token: string };
    if (res.status !== 200) throw new Error(`login: ${res.status} ${JSON.stringify(body)}`);
    return body.token;
  }

  async category(): Promise<number> {
    const res = await this.json('POST', '/v1/categories', { name: `C ${randomUUID()}` });
    if (res.status !== 201) throw new Error(`category: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as number;
  }
}

/** A request with only the credentials in `init`; never throws on a status. */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { dispatcher: agent, ...init });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers as unknown as Headers };
}

export interface LoadResult {
  /** Every answer: method and path kind, status (0 for a network error) and detail. */
  requests: { op: string; status: number; startedAt: number; detail?: string }[];
  /** The ids of pets whose create got a 2xx, with the key sent and the tags asked for. */
  created: { id: number; key: string; name: string }[];
}

const TAGS = ['cluster', 'load', 'tagged'];

/** Resolves once the load has answered `count` more requests than now. */
export function moreRequests(result: LoadResult, count: number): Promise<void> {
  const target = result.requests.length + count;
  return waitFor(() => Promise.resolve(result.requests.length >= target), 60_000);
}

/** A promise to pass as a load's `stop`, and the function that resolves it. */
export function stopSignal(): { stopped: Promise<void>; stop: () => void } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  return { stopped, stop };
}

/**
 * A mixed load through nginx from `workers` concurrent loops (list, get, create with an
 * Idempotency-Key, sent twice one time in five as a client retry, update, image upload)
 * until `stop` resolves, recording into `result` as it goes. Every create asks for the same three tags, so a half-written pet
 * would show as one with fewer.
 */
export async function runLoad(
  t: TestCluster,
  categoryId: number,
  stop: Promise<unknown>,
  result: LoadResult = { requests: [], created: [] },
  workers = 6,
): Promise<LoadResult> {
  const image = await pngImage(16, 16);
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const attempt = async (op: string, request: () => Promise<Answer>) => {
    const startedAt = performance.now();
    const record = (status: number, detail?: string) =>
      result.requests.push({ op, status, startedAt, ...(detail ? { detail } : {}) });
    try {
      const answer = await request();
      record(answer.status, answer.status >= 300 ? JSON.stringify(answer.body) : undefined);
      return answer;
    } catch (error) {
      record(0, messageOf((error as { cause?: unknown }).cause ?? error));
      return undefined;
    }
  };
  const someId = () =>
    result.created.length > 0
      ? result.created[Math.floor(Math.random() * result.created.length)].id
      : undefined;
  // A pet takes a few images only (409 beyond its limit): each gets at most one here.
  const withoutImage: number[] = [];

  const loop = async (worker: number) => {
    for (let n = 0; !stopped; n += 1) {
      const kind = (n + worker) % 5;
      const id = someId();
      if (kind === 0 || id === undefined) {
        const key = randomUUID();
        const name = `Load ${key.slice(0, 8)}`;
        const body = { name, categoryId, status: 'available', tags: TAGS };
        const sends = n % 5 === 1 ? 2 : 1;
        for (let s = 0; s < sends; s += 1) {
          const answer = await attempt('create', () =>
            t.json('POST', '/v1/pets', body, { [IDEMPOTENCY_KEY_HEADER]: key }),
          );
          if (answer && answer.status < 300) {
            result.created.push({ id: answer.body.id as number, key, name });
            if (s === 0) withoutImage.push(answer.body.id as number);
          }
        }
      } else if (kind === 1) {
        await attempt('list', () => t.request('/v1/pets?limit=20'));
      } else if (kind === 2) {
        await attempt('get', () => t.request(`/v1/pets/${id}`));
      } else if (kind === 3) {
        await attempt('update', () => t.json('PUT', `/v1/pets/${id}`, { age: n % 20 }));
      } else if (withoutImage.length > 0) {
        const target = withoutImage.shift()!;
        const form = new FormData();
        form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'p.png');
        await attempt('upload', () =>
          t.request(`/v1/pets/${target}/upload-image`, {
            method: 'POST',
            body: form,
            headers: { [IDEMPOTENCY_KEY_HEADER]: randomUUID() },
          }),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
  return result;
}

/** Every pet the load wrote, with how many tags each has, from the database directly. */
export async function loadPets(db: pg.Pool): Promise<{ id: number; name: string; tags: number }[]> {
  const { rows } = await db.query<{ id: number; name: string; tags: number }>(
    `SELECT p.id::int AS id, p.name, count(pt.tag_id)::int AS tags
       FROM pets p LEFT JOIN pet_tags pt ON pt.pet_id = p.id
      WHERE p.name LIKE 'Load %' GROUP BY p.id`,
  );
  return rows;
}

export const EXPECTED_TAGS = TAGS.length;
