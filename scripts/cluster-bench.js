/* global console, fetch, URL */
// The cluster's throughput against one instance, on the same machine and in one run:
// autocannon through nginx (three instances) and straight to one of those instances, in
// alternating rounds. `node scripts/cluster-bench.js [seconds per round]`; needs what
// `npm run cluster` needs. Results: docs/performance.md, "A cluster on one machine".
import process from 'node:process';
import autocannon from 'autocannon';
import { ensureBuilt, startCluster } from './cluster.js';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = 3;
const CONNECTIONS = 32;
const PETS = 200;

async function call(url, path, token, body) {
  const res = await fetch(`${url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function measure(url, path, token) {
  return new Promise((done, fail) => {
    autocannon(
      {
        url: `${url}${path}`,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { authorization: `Bearer ${token}` },
      },
      (error, result) => {
        if (error) return fail(error);
        if (result.non2xx > 0 || result.errors > 0) {
          return fail(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        }
        return done(result);
      },
    );
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  ensureBuilt();
  const database = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/x');
  database.pathname = '/petstore_cluster_bench';
  const cluster = await startCluster({
    port: 0,
    databaseUrl: database.toString(),
    redisUrl: process.env.REDIS_URL,
    adminPassword: 'cluster bench admin password',
    // The budget of one caller must not be what is measured.
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MINUTE: '100000000',
      RATE_LIMIT_USER_PER_HOUR: '100000000',
    },
  });
  try {
    const { token } = await call(cluster.url, '/v1/auth/login', undefined, {
      username: 'admin',
      password: 'cluster bench admin password',
    });
    const { pets } = await call(cluster.url, '/v1/pets?limit=1', token);
    if (pets.length === 0) {
      const category = await call(cluster.url, '/v1/categories', token, { name: 'Bench' });
      for (let i = 0; i < PETS; i += 1) {
        await call(cluster.url, '/v1/pets', token, {
          name: `Bench ${i}`,
          categoryId: category.id,
          status: 'available',
          tags: ['bench'],
        });
      }
    }
    const targets = { 'one instance': cluster.instances[0].url, 'cluster (nginx)': cluster.url };
    for (const path of ['/v1/pets?limit=20', '/v1/categories']) {
      const rows = {};
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [name, url] of Object.entries(targets)) {
          const result = await measure(url, path, token);
          (rows[name] ??= []).push(result);
        }
      }
      console.log(
        `\nGET ${path}: ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections (medians)`,
      );
      const base = median(rows['one instance'].map((r) => r.requests.average));
      for (const [name, results] of Object.entries(rows)) {
        const rps = median(results.map((r) => r.requests.average));
        const p50 = median(results.map((r) => r.latency.p50));
        const p99 = median(results.map((r) => r.latency.p99));
        console.log(
          `  ${name.padEnd(16)} ${rps.toFixed(0).padStart(6)} req/s  p50 ${p50} ms  p99 ${p99} ms  ×${(rps / base).toFixed(2)}`,
        );
      }
    }
  } finally {
    await cluster.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
