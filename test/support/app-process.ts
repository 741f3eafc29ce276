import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { freePort } from './free-port.js';
import { npmScript } from './npm-script.js';
import { generousRateLimits } from './rate-limits.js';

const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
const ADMIN_PASSWORD = 'admin password for tests';
// One secret for every process of a test run: instances of one deployment share it.
const JWT_SECRET = randomBytes(32).toString('base64url');
const MFA_ENCRYPTION_KEY = randomBytes(32).toString('base64');

/**
 * The built service (`node dist/main.js`) as a child process on a port of its own, with
 * exactly the environment given (plus PATH): what an operator runs, signals included.
 */
export class AppProcess {
  private readonly output: string[] = [];
  private readonly exited: Promise<number | null>;
  private token?: string;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      this.output.push(...lines);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.output.push(chunk));
    // 'close', not 'exit': by then everything the process wrote has been read.
    this.exited = new Promise((done) => child.once('close', (code) => done(code)));
  }

  /**
   * Starts the service and waits until GET /health/live answers. A variable given as
   * undefined is left out of the environment. With `script`, node runs with that npm
   * script's flags and variables, as `npm run <script>` would run it (without the build).
   */
  static async start(
    env: Record<string, string | undefined>,
    script?: string,
  ): Promise<AppProcess> {
    const app = await AppProcess.spawn(env, script ? await npmScript(script) : undefined);
    await app.waitUntilLive();
    return app;
  }

  /** Runs the service when it is expected to refuse to start: its exit code and output. */
  static async failedStart(
    env: Record<string, string>,
    withinMs = 30_000,
  ): Promise<{ code: number | null; lines: string[] }> {
    const app = await AppProcess.spawn(env);
    const timer = setTimeout(() => app.child.kill('SIGKILL'), withinMs);
    const code = await app.exitCode();
    clearTimeout(timer);
    return { code, lines: app.lines };
  }

  private static async spawn(
    env: Record<string, string | undefined>,
    script?: { env: Record<string, string>; flags: string[] },
  ): Promise<AppProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [...(script?.flags ?? []), MAIN], {
      env: {
        ...script?.env,
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        ADMIN_PASSWORD,
        JWT_SECRET,
        MFA_ENCRYPTION_KEY,
        ...generousRateLimits(),
        // Stopped at once unless a test is about the drain (10 s by default).
        SHUTDOWN_DRAIN_MS: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new AppProcess(child, port);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** fetch() on this instance as the bootstrap admin (logged in on first use). */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    this.token ??= await this.login();
    return fetch(`${this.url}${path}`, {
      ...init,
      headers: {
        ...(init.headers as Record<string, string>),
        Authorization: `Bearer ${this.token}`,
      },
    });
  }

  private async login(): Promise<string> {
    const res = await fetch(`${this.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  }

  /** Everything the process wrote so far, one entry per line. */
  get lines(): string[] {
    return [...this.output];
  }

  /** The JSON log lines written so far. */
  logs(): Record<string, unknown>[] {
    return this.output.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** The exit code once the process has ended (null when a signal ended it). */
  exitCode(): Promise<number | null> {
    return this.exited;
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.signal('SIGTERM');
    return this.exitCode();
  }

  // A fresh embedded data directory (initdb, then every migration) takes 15 s on an idle
  // 2-core machine and over 40 s on a busy one; a start that fails ends the wait at once.
  private async waitUntilLive(): Promise<void> {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) break;
      try {
        if ((await fetch(`${this.url}/health/live`)).ok) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    this.child.kill('SIGKILL');
    throw new Error(`The app did not start:\n${this.output.join('\n')}`);
  }
}
