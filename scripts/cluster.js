/* global console, setTimeout, clearTimeout, fetch, AbortSignal, URL */
// A local cluster with one command (`npm run cluster`): three instances of the built
// service behind nginx (rendered from docker/nginx.conf.template, the containers' one
// template), PgBouncer in transaction mode in front of PostgreSQL, and Redis. Prints where
// everything listens and where each part logs; starts again an instance that exits;
// `restart <n>` on its input restarts one; stops everything it started on SIGINT (Ctrl-C)
// or SIGTERM. `--fresh` starts on a new database.
// The cluster test suite (test/cluster/) imports startCluster() and drives the same code.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  existsSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
} from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
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
// Unless told not to (followReadiness), nginx's upstream list follows the instances'
// readiness, as a Kubernetes endpoints controller follows pods (docs/operations.md,
// "Shutdown"): each instance's /health/ready is polled this often, and taken out after this
// many failed polls in a row (one slow answer under load is no reason), put back after one
// that succeeds. An extra: an instance's drain alone loses no request.
const READY_POLL_MS = 250;
const READY_POLL_TIMEOUT_MS = 1_000;
const NOT_READY_POLLS = 2;
// Waiting for nginx's old workers usually takes milliseconds; they finish their requests first.
const RELOAD_LIMIT_MS = 10_000;
// An instance that exits by itself is started again after 1 s, then 2, 4… up to 30 s while
// its starts keep failing.
const RESTART_FIRST_DELAY_MS = 1_000;
const RESTART_MAX_DELAY_MS = 30_000;
// What a child's output keeps in memory (for errors and tests); its log file keeps all.
const KEPT_CHUNKS = 2_000;
// Ports are picked from here up to the kernel's ephemeral range: a port the kernel hands out
// for outgoing connections may be taken between the check and the bind (test/support/free-port.ts).
const LOWEST_PORT = 10_000;
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

/** A loopback port that nothing listens on, below the kernel's ephemeral range. */
export async function freePort() {
  const end = Math.max(ephemeralPortsStart(), LOWEST_PORT + 1_000);
  for (;;) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (end - LOWEST_PORT));
    if (await isFree(port)) return port;
  }
}

function ephemeralPortsStart() {
  try {
    const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    return Number(range.trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

function isFree(port) {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/**
 * Whether process `pid` holds the socket listening on 127.0.0.1:`port` (Linux's /proc): an
 * answer on the port may come from another server while nginx still retries its bind.
 */
function listensOn(pid, port) {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const LISTEN = '0A';
  const inodes = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === LISTEN)
    .map((fields) => `socket:[${fields[9]}]`);
  let fds;
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    // The process exited since the caller looked: its exit is reported on the next check.
    return false;
  }
  return fds.some((fd) => {
    try {
      return inodes.includes(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false;
    }
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

/**
 * A child process in its own process group, so that Ctrl-C reaches only this script. Its
 * output is appended to `logFile` when given.
 */
class Child {
  constructor(name, command, args, options = {}, logFile = undefined) {
    this.name = name;
    this.output = [];
    // Set before a stop the script asks for: any other exit is reported.
    this.stopAsked = false;
    this.process = spawn(command, args, {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    const file = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
    for (const stream of [this.process.stdout, this.process.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk) => {
        file?.write(chunk);
        this.output.push(chunk);
        if (this.output.length > KEPT_CHUNKS) this.output.shift();
      });
    }
    this.exited = new Promise((done) =>
      this.process.once('close', (code, signal) => {
        file?.end();
        done({ code, signal });
      }),
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
    this.stopAsked = true;
    this.signal(signal);
    return this.exited;
  }
}

function describeExit({ code, signal }) {
  return signal ? `was ended by ${signal}` : `exited with code ${code}`;
}

/**
 * Starts the cluster. Every option has an environment variable for `npm run cluster`:
 * port (CLUSTER_PORT, 8080; 0 for a free one), pgbouncerPort (CLUSTER_PGBOUNCER_PORT),
 * instancePorts (CLUSTER_INSTANCE_PORTS, comma-separated; free ones by default),
 * databaseUrl (DATABASE_URL; the database is created if missing), fresh (`--fresh`: the
 * database dropped and created first), redisUrl (REDIS_URL; redis-server is started on a
 * free port when nothing answers there), env (more variables for the instances: the
 * caller's environment for `npm run cluster`), followReadiness (CLUSTER_FOLLOW_READINESS,
 * true; false leaves nginx's upstream list alone), keepLogs (the CLI's: `stop()` leaves the
 * logs folder). log (no variable; console.log by default) gets a line each time an instance
 * is taken out of nginx or put back, exits by itself, or is started again.
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
  await createDatabase(database, options.fresh ?? false);
  const adminExisted = await adminExists(database);
  const logsDir = join(dir, 'logs');
  await mkdir(logsDir);
  const logFile = (name) => join(logsDir, `${name}.log`);

  const pgbouncerPort = options.pgbouncerPort || (await freePort());
  const pgbouncer = await startPgbouncer(dir, database, pgbouncerPort, asRoot, logFile);
  started.push(pgbouncer);

  let redisUrl = options.redisUrl ?? DEFAULT_REDIS_URL;
  let redis;
  if (!(await redisAnswers(redisUrl))) {
    const missingRedis = missingBinaries(['redis-server']);
    if (missingRedis) throw new Error(`Nothing answers at ${redisUrl}. ${missingRedis}`);
    const port = await freePort();
    redis = new Child(
      'redis',
      findBinary('redis-server'),
      [...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no']],
      {},
      logFile('redis'),
    );
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
    // What the caller may change (options.env, the caller's environment for the CLI).
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    // Scraped from each instance directly; nginx answers 404 for it.
    METRICS_ENABLED: 'true',
    REGISTRATION: 'closed',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
    SHUTDOWN_TIMEOUT_MS: '15000',
    // Its users (tests, benches) sign the admin in with a password, without a second factor.
    MFA_REQUIRED_ROLES: '',
    ...options.env,
    // What makes it this cluster.
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
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
    MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ADMIN_PASSWORD: adminPassword,
  };

  const instances = instancePorts.map((instancePort, index) => ({
    index,
    port: instancePort,
    url: `http://127.0.0.1:${instancePort}`,
    up: false,
    child: undefined,
    migrations: [],
    logFile: logFile(`instance-${index}`),
    get pid() {
      return this.child?.pid;
    },
  }));

  const migrate = async (instance) => {
    const child = new Child(
      `migrate-${instance.index}`,
      process.execPath,
      [...['--input-type=module', '-e', MIGRATE]],
      { env: { ...baseEnv, DATABASE_URL: migrateUrl.toString() } },
      instance.logFile,
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
      { env: { ...baseEnv, PORT: String(instance.port) } },
      instance.logFile,
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
    void child.exited.then((exit) => {
      if (!child.stopAsked && !stopping) void startAgain(instance, describeExit(exit));
    });
  };

  const log = options.log ?? console.log;
  let stopping = false;
  let wakeUp = () => {};
  const stopped = new Promise((done) => (wakeUp = done));
  const restarts = new Set();
  // An instance that exits without being asked to (a crash, an operator's `kill`): reported
  // and started again, waiting longer after each start that fails.
  const startAgain = (instance, how) => {
    const restart = (async () => {
      for (let attempt = 0; !stopping; attempt += 1) {
        const delayMs = Math.min(RESTART_FIRST_DELAY_MS * 2 ** attempt, RESTART_MAX_DELAY_MS);
        log(
          `instance ${instance.index} (${instance.url}) ${how}: starting it again in ${delayMs / 1000} s`,
        );
        await new Promise((done) => {
          const timer = setTimeout(done, delayMs);
          void stopped.then(() => {
            clearTimeout(timer);
            done();
          });
        });
        if (stopping) return;
        try {
          await startInstance(instance);
          log(`instance ${instance.index} (${instance.url}) started again, pid ${instance.pid}`);
          return;
        } catch (error) {
          how = `did not start (${firstLine(error)})`;
        }
      }
    })();
    restarts.add(restart);
    void restart.finally(() => restarts.delete(restart));
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
  const access = openSync(logFile('nginx-access'), 'a');
  const errors = openSync(logFile('nginx-error'), 'a');
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
        throw new Error(`nginx exited:\n${readFileSync(logFile('nginx-error'), 'utf8')}`);
      }
      return (await answers(`${url}/health/ready`)) && listensOn(nginx.pid, port);
    },
    10_000,
  );
  void nginx.exited.then((exit) => {
    if (!nginx.stopAsked) log(`nginx ${describeExit(exit)}: ${url} answers no more`);
  });

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

  const failedPolls = instances.map(() => 0);
  const followReadiness = options.followReadiness ?? true;
  let watching = followReadiness;
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
    adminExisted,
    dir,
    logsDir,
    instances,
    /**
     * SIGTERM, and the exit. The instance drains by itself: not ready, answering with
     * Connection: close, while the watcher (if on) takes it out of nginx; then its listener
     * and idle connections close.
     */
    async stopInstance(index) {
      return instances[index].child.stop('SIGTERM');
    },
    /** Starts a stopped instance again (migrations first), until the watcher puts it back. */
    async startInstance(index) {
      const instance = instances[index];
      await startInstance(instance);
      if (!followReadiness) return;
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
     * until the watcher's polls take the instance out. It is not started again.
     */
    async killInstance(index) {
      return instances[index].child.stop('SIGKILL');
    },
    logs(index) {
      return instances[index].child?.lines ?? [];
    },
    async stop() {
      stopping = true;
      wakeUp();
      watching = false;
      await watcher;
      await Promise.allSettled(restarts);
      await nginx.stop('SIGQUIT');
      await Promise.all(instances.map((instance) => instance.child?.stop('SIGTERM')));
      await pgbouncer.stop('SIGINT');
      await redis?.stop('SIGTERM');
      const removed = options.keepLogs
        ? (await readdir(dir)).filter((entry) => entry !== 'logs').map((entry) => join(dir, entry))
        : [dir];
      for (const path of removed) await rm(path, { recursive: true, force: true });
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

function firstLine(error) {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

/** Creates the database if missing; `fresh` drops it first. */
async function createDatabase(url, fresh) {
  const name = decodeURIComponent(url.pathname.slice(1));
  const quoted = `"${name.replaceAll('"', '""')}"`;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    if (fresh) await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await client.end();
  }
}

/** Whether a kept database has its admin already: ADMIN_PASSWORD then changes nothing. */
async function adminExists(url) {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT to_regclass('users') IS NOT NULL AS migrated`);
    if (!rows[0].migrated) return false;
    const { rowCount } = await client.query(`SELECT 1 FROM users WHERE role = 'admin' LIMIT 1`);
    return rowCount > 0;
  } finally {
    await client.end();
  }
}

async function startPgbouncer(dir, database, port, asRoot, logFile) {
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
  const child = new Child('pgbouncer', findBinary('pgbouncer'), args, {}, logFile('pgbouncer'));
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

// Set by the script itself, or read by it rather than by the instances.
const NOT_PASSED_ON = /^(CLUSTER_|npm_)|^(DATABASE_URL|REDIS_URL|ADMIN_PASSWORD|PORT|HOST)$/;

function fromEnv(args) {
  const number = (name) => (process.env[name] ? Number(process.env[name]) : undefined);
  return {
    port: number('CLUSTER_PORT') ?? 8080,
    pgbouncerPort: number('CLUSTER_PGBOUNCER_PORT'),
    instancePorts: process.env.CLUSTER_INSTANCE_PORTS?.split(',').map(Number),
    databaseUrl: process.env.DATABASE_URL,
    fresh: args.includes('--fresh'),
    redisUrl: process.env.REDIS_URL,
    adminPassword: process.env.ADMIN_PASSWORD,
    followReadiness: process.env.CLUSTER_FOLLOW_READINESS !== 'false',
    // METRICS_ENABLED, LOG_LEVEL, OTEL_* and the like reach the instances.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !NOT_PASSED_ON.test(name)),
    ),
    keepLogs: true,
  };
}

async function main() {
  const missing = missingBinaries();
  if (missing) {
    console.error(missing);
    process.exit(1);
  }
  const unknown = process.argv.slice(2).filter((arg) => arg !== '--fresh');
  if (unknown.length > 0) {
    console.error(`Unknown argument: ${unknown.join(' ')} (only --fresh: a new database)`);
    process.exit(1);
  }
  ensureBuilt();
  console.log('Starting PgBouncer, Redis, three instances (migrating first) and nginx…');
  const cluster = await startCluster(fromEnv(process.argv.slice(2)));
  const admin = cluster.adminExisted
    ? 'admin exists already in this database: its password is the one from its first start (--fresh: a new database)'
    : `admin / ${cluster.adminPassword}${process.env.ADMIN_PASSWORD ? ' (ADMIN_PASSWORD)' : ''}`;
  console.log(`
The cluster is up:
  API (nginx)   ${cluster.url}/v1
  admin         ${admin}
  instances     ${cluster.instances.map((i) => `${i.url} (pid ${i.pid})`).join('  ')}
  PgBouncer     127.0.0.1:${cluster.pgbouncerPort} (transaction mode) -> ${cluster.databaseUrl.replace(/:[^:@/]*@/, ':***@')}
  Redis         ${cluster.redisUrl}${cluster.redisStarted ? ' (started here)' : ' (already running)'}
  logs          ${cluster.logsDir}: instance-<n>.log, nginx-access.log (upstream= names the instance), nginx-error.log, pgbouncer.log
An instance that exits is started again. Type "restart <n>" (0-${cluster.instances.length - 1}) and Enter to restart one (drained first).
Ctrl-C stops everything it started.`);
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    const redis = cluster.redisStarted ? ' and Redis' : '';
    console.log(`${signal}: stopping nginx, the instances, PgBouncer${redis}…`);
    await cluster.stop();
    console.log(`Stopped. The logs are kept in ${cluster.logsDir}`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  createInterface({ input: process.stdin }).on('line', (line) => {
    const index = /^\s*restart\s+(\d+)\s*$/.exec(line)?.[1];
    if (line.trim() === '') return;
    if (index === undefined || !cluster.instances[Number(index)]) {
      console.log(`Unknown command: restart <n>, n from 0 to ${cluster.instances.length - 1}`);
      return;
    }
    console.log(`instance ${index}: SIGTERM (draining), then starting it again…`);
    cluster.restartInstance(Number(index)).then(
      (exit) => {
        const instance = cluster.instances[Number(index)];
        console.log(
          `instance ${index} ${describeExit(exit)} and is running again, pid ${instance.pid}`,
        );
      },
      (error) => console.log(`instance ${index}: restart failed: ${firstLine(error)}`),
    );
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
