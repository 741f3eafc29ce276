import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { generousRateLimits } from '../test/support/rate-limits.js';
import { adminClient, startBenchApp } from './bench-app.js';
import { median } from './load.js';

const RUNS = 21;
const PASSWORD = 'bench user password';

/**
 * `npm run bench -- login`: the time of the anonymous answers that must not tell whether an
 * account exists (docs/security-model.md): a login with a wrong password against one naming
 * no user, and a sign-up with a taken email against one with a free email. Alternated, one
 * at a time, medians and their ratio printed. No test asserts these times: a test counts the
 * argon2 work instead (test/e2e/auth/auth.e2e-spec.ts), which a busy machine cannot upset.
 */
export async function run(): Promise<void> {
  // Configuration is read when the app starts: failures would otherwise lock the username.
  Object.assign(process.env, {
    ...generousRateLimits(),
    LOGIN_LOCKOUT_FAILURES: String(RUNS * 10),
    REGISTRATION: 'open',
  });
  const app = await startBenchApp(100_000_000);
  try {
    const { post } = await adminClient(app.base);
    const owner = `owner_${randomUUID().slice(0, 8)}`;
    await post('/users', { username: owner, email: `${owner}@example.com`, password: PASSWORD });

    const timed = async (path: string, body: object, status: number): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${app.base}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      const ms = performance.now() - started;
      if (response.status !== status) throw new Error(`${path}: ${response.status}, not ${status}`);
      return ms;
    };
    const login = (username: string) =>
      timed('/auth/login', { username, password: 'not the password' }, 401);
    const signUp = (email?: string) => {
      const username = `person_${randomUUID().slice(0, 8)}`;
      const address = email ?? `${username}@example.com`;
      return timed('/auth/register', { username, email: address, password: PASSWORD }, 202);
    };

    const pairs = {
      'login: wrong password / unknown user': [() => login(owner), () => login('nobody.here')],
      'sign-up: taken email / free email': [() => signUp(`${owner}@example.com`), () => signUp()],
    } as const;
    const rows: Record<string, Record<string, number | string>> = {};
    for (const [name, [known, unknown]] of Object.entries(pairs)) {
      // One warm-up each, then alternate so that drift affects both sides alike.
      await known();
      await unknown();
      const knownMs: number[] = [];
      const unknownMs: number[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        knownMs.push(await known());
        unknownMs.push(await unknown());
      }
      rows[name] = {
        'known ms': Math.round(median(knownMs)),
        'unknown ms': Math.round(median(unknownMs)),
        'unknown / known': (median(unknownMs) / median(knownMs)).toFixed(2),
      };
    }
    console.log(`login: medians of ${RUNS} alternated requests, one at a time`);
    console.table(rows);
  } finally {
    await app.close();
  }
}
