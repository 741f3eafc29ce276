import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../test/support/free-port.js';
import { generousRateLimits } from '../test/support/rate-limits.js';
import {
  ADMIN_PASSWORD,
  databaseUrl,
  measure,
  median,
  prepareDatabase,
  start,
  tokens,
  type LoadOptions,
} from './load.js';
import { waitForHttp } from './processes.js';
import { closeSink, otlpSinkFor, preloadOf, variantOf } from './tracing.js';

/**
 * `npm run bench -- guards [--profile]`: CPU time per request of the app process
 * (docs/performance.md, Guard chain CPU), read from /proc before and after a fixed load (a
 * set rate, so a busy machine slows nothing down but the wall clock):
 * - a bare node:http server answering a fixed JSON (the raw baseline), the floor;
 * - GET /health/live: @Public() and outside /v1, so every guard returns at its first check;
 * - GET /v1/rate-limit with rotating bearer tokens: the whole guard chain (the token's
 *   account state comes from a cache), two counter reads and the request's log line;
 * - GET /v1/pets/1 and GET /v1/pets (a page of 20), the same way: the app's share of a read
 *   (the database's CPU is not counted); POST /v1/pets without an Idempotency-Key, the cost
 *   every create pays for the key's interceptor.
 * Then, in this process, the global pipes on a list query (the validation of GET /v1/pets).
 * With `--profile`, the app runs under `node --cpu-prof` with the bearer load only, and the
 * functions that take most of its CPU are printed; the profile stays in bench/results/.
 * With BENCH_COMPARE_APP=<another worktree>/dist-bench/src/main.js, that build answers the
 * same app routes in the same rounds, on the same database: before and after a change, under
 * the same load from the rest of the machine. With `--variant=KEY=VALUE` (repeatable), this
 * build with those settings changed is the other one: before and after a setting.
 */
const PROFILE = process.argv.includes('--profile');
/** Another build's dist-bench/src/main.js, run alongside in the same rounds: before/after. */
const COMPARE = process.env.BENCH_COMPARE_APP;
const VARIANT = variantOf(process.argv);
/** The other process: another build, or this one with the variant's settings. */
const OTHER = COMPARE ?? (Object.keys(VARIANT).length > 0 ? 'dist-bench/src/main.js' : undefined);
const OTHER_LABEL = COMPARE ?? JSON.stringify(VARIANT);
const DATABASE = 'petstore_bench_quick';
const ROUNDS = 5;
const SECONDS = 4;
const RATE = 300;
const CONNECTIONS = 8;
const USERS = 50;
const VALIDATIONS = 20_000;
const PROFILE_DIR = 'bench/results/profiles';
// /proc reports CPU time in clock ticks of 1/100 s (USER_HZ) on every Linux architecture.
const TICKS_PER_MS = 0.1;

/** User and system CPU time of a process so far, in milliseconds. */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

/** CPU milliseconds the process behind `pid` spent per response under a load. */
async function cpuPerRequest(
  pid: number,
  origin: string,
  path: string,
  options: Partial<LoadOptions>,
): Promise<number> {
  const before = await cpuMsOf(pid);
  const sample = await measure(origin, path, {
    connections: CONNECTIONS,
    seconds: SECONDS,
    rate: RATE,
    ...options,
  });
  const spent = (await cpuMsOf(pid)) - before;
  if (sample.bad > 0) throw new Error(`${sample.bad} of ${sample.responses} to ${path} failed`);
  return spent / sample.responses;
}

export async function run(): Promise<void> {
  await prepareDatabase(DATABASE, 0);
  const [appPort, rawPort, otherPort] = await Promise.all([freePort(), freePort(), freePort()]);
  await mkdir(PROFILE_DIR, { recursive: true });
  const appEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl(DATABASE),
    PORT: String(appPort),
    HOST: '127.0.0.1',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The bench signs the admin in with a password, without a second factor.
    MFA_REQUIRED_ROLES: '',
    ADMIN_PASSWORD,
    DATA_DIR: `/tmp/petstore-bench-${appPort}`,
    ...generousRateLimits('100000000'),
  };
  const app = start('dist-bench/src/main.js', appEnv, [
    ...preloadOf('dist-bench/src/main.js'),
    ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
  ]);
  const sink = await otlpSinkFor(VARIANT);
  const other = OTHER
    ? start(OTHER, { ...appEnv, ...VARIANT, PORT: String(otherPort) }, preloadOf(OTHER))
    : undefined;
  const raw = start('dist-bench/bench/raw-baseline.js', {
    DATABASE_URL: databaseUrl(DATABASE),
    PORT: String(rawPort),
  });
  const appOrigin = `http://127.0.0.1:${appPort}`;
  const rawOrigin = `http://127.0.0.1:${rawPort}`;
  const otherOrigin = `http://127.0.0.1:${otherPort}`;
  try {
    await Promise.all(
      [appOrigin, rawOrigin, ...(other ? [otherOrigin] : [])].map((o) =>
        waitForHttp(`${o}/v1/pets`),
      ),
    );
    const auth = await tokens(`${appOrigin}/v1`, USERS);
    const scenarios: Scenario[] = [
      {
        name: 'bare node:http, fixed JSON',
        pid: raw.pid!,
        origin: rawOrigin,
        path: '/v1/rate-limit',
        auth,
      },
      {
        name: 'GET /health/live (@Public, outside /v1)',
        pid: app.pid!,
        origin: appOrigin,
        path: '/health/live',
      },
      {
        name: 'GET /v1/rate-limit, bearer token',
        pid: app.pid!,
        origin: appOrigin,
        path: '/v1/rate-limit',
        auth,
      },
      {
        name: 'GET /v1/pets/1, bearer token',
        pid: app.pid!,
        origin: appOrigin,
        path: '/v1/pets/1',
        auth,
      },
      {
        name: 'GET /v1/pets, bearer token',
        pid: app.pid!,
        origin: appOrigin,
        path: '/v1/pets',
        auth,
      },
      {
        name: 'POST /v1/pets, bearer token, no Idempotency-Key',
        pid: app.pid!,
        origin: appOrigin,
        path: '/v1/pets',
        auth,
        method: 'POST',
        body: JSON.stringify({ name: 'Guard bench pet', categoryId: 1, status: 'available' }),
      },
    ];
    const appScenarios = scenarios.slice(1);
    if (other) {
      // The same routes of the other build, with the same users (its tokens, same secret).
      for (const s of appScenarios) {
        scenarios.push({
          ...s,
          name: `${s.name} [${OTHER_LABEL}]`,
          pid: other.pid!,
          origin: otherOrigin,
        });
      }
    }
    console.log('bench: warm-up');
    for (const s of scenarios) await cpuPerRequest(s.pid, s.origin, s.path, loadOf(s));
    if (PROFILE) {
      const { name, pid, origin, path } = scenarios[2];
      console.log(`bench: profiling ${name}`);
      const loadStarted = Date.now();
      await cpuPerRequest(pid, origin, path, { auth, seconds: 10 });
      const loadEnded = Date.now();
      app.kill('SIGTERM');
      await once(app, 'exit');
      await printProfile(Date.now() - loadStarted, Date.now() - loadEnded);
      return;
    }
    const samples = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) {
        samples.get(s.name)!.push(await cpuPerRequest(s.pid, s.origin, s.path, loadOf(s)));
      }
    }
    const ms = Object.fromEntries([...samples].map(([name, list]) => [name, median(list)]));
    const [bare, live, chain] = scenarios.map((s) => ms[s.name]);
    console.table(
      Object.entries(ms).map(([name, value]) => ({
        scenario: name,
        'CPU ms/request (median)': value.toFixed(3),
        rounds: samples
          .get(name)!
          .map((v) => v.toFixed(3))
          .join(' '),
      })),
    );
    console.log(
      `bench: bearer route - /health/live ${(chain - live).toFixed(3)} ms; ` +
        `/health/live - bare ${(live - bare).toFixed(3)} ms`,
    );
    if (other) {
      for (const s of appScenarios) {
        const mine = samples.get(s.name)!;
        const theirs = samples.get(`${s.name} [${OTHER_LABEL}]`)!;
        const paired = median(mine.map((v, round) => v - theirs[round]));
        console.log(
          `bench: ${s.name}: this build - the other ${paired.toFixed(3)} ms (paired by round)`,
        );
      }
    }
    console.log(`bench: list query validation ${(await validationMs()).toFixed(3)} ms`);
  } finally {
    for (const child of [app, raw, other]) if (child?.exitCode === null) child.kill('SIGTERM');
    await closeSink(sink);
  }
}

/** CPU ms per call of the global pipes on GET /v1/pets's query, as the app runs them. */
async function validationMs(): Promise<number> {
  const { SafeInputPipe } = await import('../src/common/pipes/safe-input.pipe.js');
  const { bodyAndQueryValidationPipe } =
    await import('../src/common/pipes/body-and-query-validation.pipe.js');
  const { ListPetsQueryDto } = await import('../src/pets/dto/list-pets-query.dto.js');
  const pipes = [new SafeInputPipe(), bodyAndQueryValidationPipe()];
  const metadata = { type: 'query', metatype: ListPetsQueryDto, data: undefined } as const;
  const validate = async () => {
    let value: unknown = { limit: '20', category: 'Bulk 1', status: 'available' };
    for (const pipe of pipes) value = await pipe.transform(value, metadata);
  };
  for (let i = 0; i < VALIDATIONS / 10; i++) await validate();
  const before = process.cpuUsage();
  for (let i = 0; i < VALIDATIONS; i++) await validate();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000 / VALIDATIONS;
}

interface Scenario {
  name: string;
  pid: number;
  origin: string;
  path: string;
  auth?: string[];
  method?: string;
  body?: string;
}

const loadOf = ({ auth, method, body }: Scenario): Partial<LoadOptions> => ({ auth, method, body });

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Where a function comes from: its package, the app's file, or Node itself. */
function originOf(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  if (url.includes('/dist-bench/')) return url.replace(/^.*\/dist-bench\//, '');
  return url.startsWith('node:') ? 'node' : '(native)';
}

/**
 * The newest profile's samples taken while the load ran (`from` and `to`, in ms before the
 * process exited): self time by function and by origin, as shares of the busy samples.
 */
async function printProfile(from: number, to: number): Promise<void> {
  const files = (await readdir(PROFILE_DIR)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const file = join(PROFILE_DIR, files.at(-1)!);
  const profile = JSON.parse(await readFile(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
    endTime: number;
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const label = ({ callFrame: { functionName, url, lineNumber } }: ProfileNode) =>
    `${functionName || '(anonymous)'} ${originOf(url)}:${lineNumber + 1}`;
  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  let busy = 0;
  let time = profile.endTime - profile.timeDeltas.reduce((a, b) => a + b, 0);
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i];
    const beforeExit = (profile.endTime - time) / 1000;
    const node = byId.get(id)!;
    if (beforeExit > from || beforeExit < to || node.callFrame.functionName === '(idle)') return;
    busy += 1;
    count(byFunction, label(node));
    count(byOrigin, originOf(node.callFrame.url));
  });
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, samples]) => ({ 'self time': `${((100 * samples) / busy).toFixed(1)}%`, name }));
  console.log(`bench: ${file}, ${busy} busy samples under load`);
  console.table(top(byFunction, 30));
  console.table(top(byOrigin, 20));
}
