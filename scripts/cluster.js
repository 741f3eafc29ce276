/* global console, setTimeout, fetch, AbortSignal, URL */
// A local cluster with one command (`npm run cluster`): three instances of the built
// service behind nginx (rendered from docker/nginx.conf.template, the containers' one
// template), PgBouncer in transaction mode in front of PostgreSQL, and Redis. Prints where
// everything listens; stops everything it started on SIGINT (Ctrl-C) or SIGTERM.
// The cluster test suite (test/cluster/) imports startCluster() and drives the same code.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = resolve(import.meta.dirname, '..');
const TEMPLATE = join(ROOT, 'docker/nginx.conf.template');
const MAIN = join(ROOT, 'dist/main.js');
// As npm start runs it: OTEL_ variables in the environment trace the instances too.
const TRACING_PRELOAD = join(ROOT, 'dist/tracing/preload.js');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/petstore_cluster';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const INSTANCES = 3;
// nginx's upstream list follows the instances' readiness, as a Kubernetes endpoints
// controller follows pods (docs/operations.md, "Shutdown"): each instance's /health/ready is
// polled this often, and taken out after this many failed polls in a row (one slow answer
// under load is no reason), put back after one that succeeds.
const READY_POLL_MS = 250;
const READY_POLL_TIMEOUT_MS = 1_000;
const NOT_READY_POLLS = 2;
// An instance keeps serving this long after SIGTERM, not ready: two polls (250 ms apart, at
// most 1 s each) and a reload of nginx (tens of milliseconds) fit in it, so nginx has
// stopped sending before the listener closes.
const SHUTDOWN_DRAIN_MS = 3_000;
// Waiting for nginx's old workers usually takes milliseconds; they finish their requests first.
const RELOAD_LIMIT_MS = 10_000;
// The instances' statement timeout, set by PgBouncer on its server connections: PgBouncer
// 1.18 cannot pass pg's `statement_timeout` start-up parameter on, so it ignores it.
const STATEMENT_TIMEOUT_MS = 5_000;
// The same code the Kubernetes migration Job runs (deploy/kubernetes/migration-job.yaml).
const MIGRATE = `
import { databaseConfig } from './dist/config/database.config.js';
import { migrate } from './dist/database/migrate.js';
import { resolveDatabase } from './dist/database/typeorm-options.js';
const { options, migrationLockTimeoutMs } = await resolveDatabase(databaseConfig());
const applied = await migrate(options, migrationLockTimeoutMs);
console.log(applied.length > 0 ? \`Applied migrations: \${applied.join(', ')}\` : 'No pending migrations');
`;

/** Which of nginx, pgbouncer (and redis-server when needed) are missing, with how to get them. */
export function missingBinaries(names = ['nginx', 'pgbouncer']) {
  const missing = names.filter((name) => !findBinary(name));
  if (missing.length === 0) return undefined;
  // Debian's package names are the binaries' names.
  return `Missing: ${missing.join(', ')}. Install them with: sudo apt-get install ${missing.join(' ')}`;
}

function findBinary(name) {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  return dirs
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

/** Builds the service when dist/ is missing or older than a file in src/. */
export function ensureBuilt(log = console.log) {
  // The newest output, not main.js: an incremental build rewrites only what changed.
  const built = existsSync(MAIN) ? newestMtime(join(ROOT, 'dist')) : 0;
  if (built > newestMtime(join(ROOT, 'src'))) return;
  log(built === 0 ? 'dist/ is missing: building' : 'dist/ is older than src/: building');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

/** ${PETSTORE_*} in the template replaced, as envsubst does in nginx's container image. */
export function renderNginxConfig(template, values) {
  return template.replace(/\$\{(PETSTORE_[A-Z_]+)\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`nginx template: no value for ${name}`);
    return values[name];
  });
}

async function until(what, condition, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function answers(url, timeoutMs = 2_000) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      done(data.toString().startsWith('+PONG'));
      socket.destroy();
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** A child process in its own process group, so that Ctrl-C reaches only this script. */
class Child {
  constructor(name, command, args, options = {}) {
    this.name = name;
    this.output = [];
    this.process = spawn(command, args, {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    for (const stream of [this.process.stdout, this.process.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk) => this.output.push(chunk));
    }
    this.exited = new Promise((done) =>
      this.process.once('close', (code, signal) => done({ code, signal })),
    );
  }

  get pid() {
    return this.process.pid;
  }

  get running() {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  get lines() {
    return this.output.join('').split('\n').filter(Boolean);
  }

  signal(signal) {
    if (this.running) this.process.kill(signal);
  }

  async stop(signal = 'SIGTERM') {
    this.signal(signal);
    return this.exited;
  }
}

/**
 * Starts the cluster. Every option has an environment variable for `npm run cluster`:
 * port (CLUSTER_PORT, 8080; 0 for a free one), pgbouncerPort (CLUSTER_PGBOUNCER_PORT),
 * instancePorts (CLUSTER_INSTANCE_PORTS, comma-separated; free ones by default),
 * databaseUrl (DATABASE_URL; the database is created if missing), redisUrl (REDIS_URL;
 * redis-server is started on a free port when nothing answers there), env (more
 * variables for the instances). log (no variable; console.log by default) gets a line each
 * time an instance is taken out of nginx or put back.
 */
export async function startCluster(options = {}) {
  const missing = missingBinaries();
  if (missing) throw new Error(missing);
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run npm run build');
  const started = [];
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-'));
  try {
    return await startIn(dir, options, started);
  } catch (error) {
    // SIGTERM, not SIGKILL: nginx's master then takes its workers down with it.
    for (const child of started.reverse()) await child.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startIn(dir, options, started) {
  // nginx's workers and PgBouncer do not run as root: they must read and write here.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dir, 0o755);
  const database = new URL(options.databaseUrl ?? DEFAULT_DATABASE_URL);
  await createDatabaseIfMissing(database);

  const pgbouncerPort = options.pgbouncerPort || (await freePort());
  const pgbouncer = await startPgbouncer(dir, database, pgbouncerPort, asRoot);
  started.push(pgbouncer);

  let redisUrl = options.redisUrl ?? DEFAULT_REDIS_URL;
  let redis;
  if (!(await redisAnswers(redisUrl))) {
    const missingRedis = missingBinaries(['redis-server']);
    if (missingRedis) throw new Error(`Nothing answers at ${redisUrl}. ${missingRedis}`);
    const port = await freePort();
    redis = new Child('redis', findBinary('redis-server'), [
      ...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    ]);
    started.push(redis);
    redisUrl = `redis://127.0.0.1:${port}`;
    await until('redis-server', () => redisAnswers(redisUrl), 10_000);
  }

  const port = options.port === undefined ? 8080 : options.port || (await freePort());
  const instancePorts = options.instancePorts ?? [];
  for (let i = instancePorts.length; i < INSTANCES; i += 1) instancePorts.push(await freePort());
  const pooled = new URL(database);
  pooled.port = String(pgbouncerPort);
  pooled.hostname = '127.0.0.1';
  const migrateUrl = new URL(pooled);
  pooled.pathname = '/petstore';
  migrateUrl.pathname = '/petstore_migrate';
  const dataDir = join(dir, 'data');
  await mkdir(dataDir);
  const adminPassword = options.adminPassword ?? randomBytes(12).toString('base64url');
  const baseEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    DATABASE_URL: pooled.toString(),
    // Named statements live in one server session; PgBouncer in transaction mode hands
    // each transaction whichever server connection is free (PgBouncer 1.18 cannot track them).
    DATABASE_PREPARED_STATEMENTS: 'false',
    // The migration lock is a session lock: migrations run before each instance starts,
    // through PgBouncer's session-mode entry (see migrate()).
    DATABASE_MIGRATIONS_RUN: 'false',
    DATABASE_POOL_MAX: '10',
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `cluster-${randomBytes(4).toString('hex')}:`,
    TRUST_PROXY: '1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ADMIN_PASSWORD: adminPassword,
    REGISTRATION: 'closed',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
    SHUTDOWN_TIMEOUT_MS: '15000',
    SHUTDOWN_DRAIN_MS: String(SHUTDOWN_DRAIN_MS),
    ...options.env,
  };

  const instances = instancePorts.map((instancePort, index) => ({
    index,
    port: instancePort,
    url: `http://127.0.0.1:${instancePort}`,
    up: false,
    child: undefined,
    migrations: [],
  }));

  const migrate = async (instance) => {
    const child = new Child(
      `migrate-${instance.index}`,
      process.execPath,
      [...['--input-type=module', '-e', MIGRATE]],
      { env: { ...baseEnv, DATABASE_URL: migrateUrl.toString() } },
    );
    const { code } = await child.exited;
    instance.migrations.push(...child.lines);
    if (code !== 0) throw new Error(`migrations failed:\n${child.lines.join('\n')}`);
  };

  const startInstance = async (instance) => {
    await migrate(instance);
    const child = new Child(
      `instance-${instance.index}`,
      process.execPath,
      ['--import', TRACING_PRELOAD, MAIN],
      {
        env: { ...baseEnv, PORT: String(instance.port) },
      },
    );
    instance.child = child;
    started.push(child);
    await until(
      `instance ${instance.index} ready on ${instance.url}`,
      async () => {
        if (!child.running) {
          throw new Error(`instance ${instance.index} exited:\n${child.lines.join('\n')}`);
        }
        return answers(`${instance.url}/health/ready`);
      },
      120_000,
    );
  };

  const nginxDir = join(dir, 'nginx');
  await mkdir(join(nginxDir, 'temp'), { recursive: true });
  if (asRoot) await chmod(join(nginxDir, 'temp'), 0o777);
  const template = await readFile(TEMPLATE, 'utf8');
  // `inNginx`: whether each instance is to be in the upstream list.
  const writeNginxConfig = (inNginx) =>
    writeFile(
      join(nginxDir, 'nginx.conf'),
      renderNginxConfig(template, {
        PETSTORE_LISTEN: `127.0.0.1:${port}`,
        PETSTORE_RESOLVER: '',
        PETSTORE_UPSTREAM_SERVERS: instances
          .map(
            (i) =>
              `server 127.0.0.1:${i.port} max_fails=1 fail_timeout=5s${inNginx[i.index] ? '' : ' down'};`,
          )
          .join('\n    '),
        PETSTORE_TEMP_PATHS: ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((kind) => `${kind}_temp_path ${join(nginxDir, 'temp', kind)};`)
          .join('\n  '),
      }),
    );

  // Three at the same instant: their migration steps meet on the advisory lock.
  await Promise.all(instances.map((instance) => startInstance(instance)));
  for (const instance of instances) instance.up = true;
  await writeNginxConfig(instances.map(() => true));
  const nginxArgs = ['-p', nginxDir, '-c', join(nginxDir, 'nginx.conf'), '-e', 'stderr'];
  // Files, not pipes: nginx opens /dev/stdout and /dev/stderr itself, which fails on a socket.
  const access = openSync(join(nginxDir, 'access.log'), 'a');
  const errors = openSync(join(nginxDir, 'error.log'), 'a');
  const nginx = new Child(
    'nginx',
    findBinary('nginx'),
    [...nginxArgs, '-g', `daemon off; pid ${join(nginxDir, 'nginx.pid')};`],
    { stdio: ['ignore', access, errors] },
  );
  closeSync(access);
  closeSync(errors);
  started.push(nginx);
  const url = `http://127.0.0.1:${port}`;
  await until(
    `nginx on ${url}`,
    async () => {
      if (!nginx.running) {
        throw new Error(`nginx exited:\n${readFileSync(join(nginxDir, 'error.log'), 'utf8')}`);
      }
      return answers(`${url}/health/ready`);
    },
    10_000,
  );

  // Applies the upstream list; returns once nginx's old workers, and so their
  // connections to instances, are gone (in-flight requests finish first).
  const reloadNginx = async (inNginx) => {
    await writeNginxConfig(inNginx);
    const before = workersOf(nginx.pid);
    nginx.signal('SIGHUP');
    await until(
      'nginx reload',
      async () => {
        const now = workersOf(nginx.pid);
        return now.length > 0 && !now.some((pid) => before.includes(pid));
      },
      RELOAD_LIMIT_MS,
    ).catch(() => undefined);
  };

  const log = options.log ?? console.log;
  const failedPolls = instances.map(() => 0);
  let watching = true;
  // Keeps nginx's upstream list equal to the set of ready instances.
  const watchReadiness = async () => {
    while (watching) {
      const ready = await Promise.all(
        instances.map(
          (i) => i.child?.running && answers(`${i.url}/health/ready`, READY_POLL_TIMEOUT_MS),
        ),
      );
      if (!watching) return;
      const inNginx = instances.map((i) => {
        failedPolls[i.index] = ready[i.index] ? 0 : failedPolls[i.index] + 1;
        return i.up ? failedPolls[i.index] < NOT_READY_POLLS : ready[i.index];
      });
      const changed = instances.filter((i) => i.up !== inNginx[i.index]);
      if (changed.length > 0) {
        await reloadNginx(inNginx);
        for (const i of changed) {
          i.up = inNginx[i.index];
          log(
            i.up
              ? `instance ${i.index} (${i.url}) ready: back in nginx`
              : `instance ${i.index} (${i.url}) not ready: taken out of nginx`,
          );
        }
      }
      await new Promise((done) => setTimeout(done, READY_POLL_MS));
    }
  };
  const watcher = watchReadiness().catch((error) =>
    log(`readiness watcher stopped: ${error instanceof Error ? error.message : error}`),
  );

  const cluster = {
    url,
    port,
    pgbouncerPort,
    redisUrl,
    redisStarted: redis !== undefined,
    databaseUrl: database.toString(),
    adminPassword,
    dir,
    instances,
    /**
     * SIGTERM, and the exit. The instance drains by itself: not ready, the watcher takes it
     * out of nginx while it still serves, then its listener closes.
     */
    async stopInstance(index) {
      return instances[index].child.stop('SIGTERM');
    },
    /** Starts a stopped instance again (migrations first), until the watcher puts it back. */
    async startInstance(index) {
      const instance = instances[index];
      await startInstance(instance);
      // A poll, and perhaps a reload already under way before the one that puts it back.
      const limitMs = READY_POLL_MS + READY_POLL_TIMEOUT_MS + 2 * RELOAD_LIMIT_MS;
      await until(`instance ${index} back in nginx`, () => instance.up, limitMs);
    },
    async restartInstance(index) {
      const result = await cluster.stopInstance(index);
      await cluster.startInstance(index);
      return result;
    },
    /**
     * SIGKILL: nginx finds out by itself, from refused connections (its passive check),
     * until the watcher's polls take the instance out.
     */
    async killInstance(index) {
      return instances[index].child.stop('SIGKILL');
    },
    logs(index) {
      return instances[index].child?.lines ?? [];
    },
    async stop() {
      watching = false;
      await watcher;
      await nginx.stop('SIGQUIT');
      await Promise.all(instances.map((instance) => instance.child?.stop('SIGTERM')));
      await pgbouncer.stop('SIGINT');
      await redis?.stop('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

function workersOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

async function createDatabaseIfMissing(url) {
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

async function startPgbouncer(dir, database, port, asRoot) {
  const pgbDir = join(dir, 'pgbouncer');
  await mkdir(pgbDir);
  const user = decodeURIComponent(database.username || 'postgres');
  const password = decodeURIComponent(database.password);
  const target = [
    `host=${database.hostname}`,
    `port=${database.port || 5432}`,
    `dbname=${decodeURIComponent(database.pathname.slice(1))}`,
    `user=${user}`,
    ...(password ? [`password=${password}`] : []),
  ].join(' ');
  const ini = `[databases]
; The instances' requests: a server connection per transaction.
petstore = ${target} pool_mode=transaction connect_query='SET statement_timeout = ${STATEMENT_TIMEOUT_MS}'
; Migrations hold a session advisory lock (and set lock_timeout): a server connection per client.
petstore_migrate = ${target} pool_mode=session

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
; Loopback only, and the server's own credentials are in the entries above.
auth_type = trust
auth_file = ${join(pgbDir, 'userlist.txt')}
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
; pg sends statement_timeout at start-up; connect_query sets it on the server instead.
ignore_startup_parameters = extra_float_digits,statement_timeout
`;
  await writeFile(join(pgbDir, 'pgbouncer.ini'), ini);
  await writeFile(join(pgbDir, 'userlist.txt'), `"${user}" ""\n`);
  if (asRoot) await chmod(pgbDir, 0o755);
  const args = [...(asRoot ? ['-u', 'nobody'] : []), join(pgbDir, 'pgbouncer.ini')];
  const child = new Child('pgbouncer', findBinary('pgbouncer'), args);
  await until(
    `pgbouncer on 127.0.0.1:${port}`,
    async () => {
      if (!child.running) throw new Error(`pgbouncer exited:\n${child.lines.join('\n')}`);
      return new Promise((done) => {
        const socket = createConnection({ host: '127.0.0.1', port }, () => {
          socket.destroy();
          done(true);
        });
        socket.once('error', () => done(false));
      });
    },
    10_000,
  );
  return child;
}

function fromEnv() {
  const number = (name) => (process.env[name] ? Number(process.env[name]) : undefined);
  return {
    port: number('CLUSTER_PORT') ?? 8080,
    pgbouncerPort: number('CLUSTER_PGBOUNCER_PORT'),
    instancePorts: process.env.CLUSTER_INSTANCE_PORTS?.split(',').map(Number),
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    adminPassword: process.env.ADMIN_PASSWORD,
  };
}

async function main() {
  const missing = missingBinaries();
  if (missing) {
    console.error(missing);
    process.exit(1);
  }
  ensureBuilt();
  console.log('Starting PgBouncer, Redis, three instances (migrating first) and nginx…');
  const cluster = await startCluster(fromEnv());
  console.log(`
The cluster is up:
  API (nginx)   ${cluster.url}/v1
  admin         admin / ${cluster.adminPassword} (ADMIN_PASSWORD; used only when the database has no admin yet)
  instances     ${cluster.instances.map((i) => i.url).join('  ')}
  PgBouncer     127.0.0.1:${cluster.pgbouncerPort} (transaction mode) -> ${cluster.databaseUrl.replace(/:[^:@/]*@/, ':***@')}
  Redis         ${cluster.redisUrl}${cluster.redisStarted ? ' (started here)' : ' (already running)'}
  files, logs   ${cluster.dir}
Ctrl-C stops everything it started.`);
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    const redis = cluster.redisStarted ? ' and Redis' : '';
    console.log(`${signal}: stopping nginx, the instances, PgBouncer${redis}…`);
    await cluster.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
