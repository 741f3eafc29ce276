import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, resolve } from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { freePort } from '../support/free-port.js';
import { generousRateLimits } from '../support/rate-limits.js';
import { waitFor } from '../support/wait.js';
import { send, TestCluster, useCluster, withServers } from './cluster-harness.js';

jest.setTimeout(300_000);

const SCRIPT = resolve(import.meta.dirname, '../../scripts/cluster.js');

/** `npm run cluster` as an operator runs it: its output, its input, its exit. */
class ClusterCommand {
  private output = '';
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    }
    this.exited = new Promise((done) => child.once('close', (code) => done(code)));
  }

  static async start(env: Record<string, string>, args: string[] = []): Promise<ClusterCommand> {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const command = new ClusterCommand(child);
    await command.printed(/Ctrl-C stops everything it started/, 180_000);
    return command;
  }

  get text(): string {
    return this.output;
  }

  async printed(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
    await waitFor(() => {
      if (this.child.exitCode !== null) throw new Error(`cluster exited:\n${this.output}`);
      return Promise.resolve(pattern.test(this.output));
    }, timeoutMs);
    return pattern.exec(this.output)!;
  }

  type(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGINT');
    return this.exited;
  }

  /** The folder whose logs the script kept, once it has stopped. */
  get keptFolder(): string | undefined {
    const logs = /The logs are kept in (\S+)/.exec(this.output)?.[1];
    return logs && dirname(logs);
  }
}

withServers('The local cluster, as an operator meets it (cluster)', () => {
  describe('started while another server holds its port', () => {
    let other: Server;
    afterAll(() => new Promise<void>((done) => other.close(() => done())));

    it('should fail, saying that nginx could not bind, though the other server answers there', async () => {
      const port = await freePort();
      other = createServer((_req, res) => res.end('{"status":"ok"}'));
      await new Promise<void>((done) => other.listen(port, '127.0.0.1', done));

      await expect(TestCluster.start({}, { port })).rejects.toThrow(
        /nginx exited:[\s\S]*bind\(\) to 127\.0\.0\.1:\d+ failed \(98: Address already in use\)/,
      );
    });
  });

  describe('running', () => {
    const cluster = useCluster();

    it('should report an instance that exits by itself and start it again, its log file kept across both', async () => {
      const t = cluster();
      const instance = t.cluster.instances[1];
      const killed = instance.pid!;
      process.kill(killed, 'SIGKILL');

      const lines = () => t.nginxChanges.map((change) => change.line);
      await waitFor(
        () =>
          Promise.resolve(
            lines().some((line) => /^instance 1 .* started again, pid \d+$/.test(line)),
          ),
        120_000,
      );
      expect(lines()).toContainEqual(
        `instance 1 (${instance.url}) was ended by SIGKILL: starting it again in 1 s`,
      );
      expect(instance.pid).not.toBe(killed);
      expect((await send(`${instance.url}/health/ready`)).status).toBe(200);

      expect(instance.logFile.startsWith(t.cluster.logsDir)).toBe(true);
      const log = await readFile(instance.logFile, 'utf8');
      expect(log.match(/(Applied|No pending) migrations/g)).toHaveLength(2);
    });

    it('should log which instance answered each request through nginx', async () => {
      const t = cluster();
      // The instance restarted by the test before comes back into nginx at the watcher's poll.
      await waitFor(
        () => Promise.resolve(t.cluster.instances.every((instance) => instance.up)),
        30_000,
      );
      for (let n = 0; n < 12; n += 1) expect((await t.request('/v1/categories')).status).toBe(200);
      const access = await readFile(`${t.cluster.logsDir}/nginx-access.log`, 'utf8');
      const upstreams = new Set(
        [...access.matchAll(/"GET \/v1\/categories HTTP\/1\.1" 200 .*upstream=([\d.:]+) /g)].map(
          (match) => match[1],
        ),
      );
      expect([...upstreams].sort()).toEqual(
        t.cluster.instances.map((instance) => `127.0.0.1:${instance.port}`).sort(),
      );
    });
  });

  describe('started with npm run cluster', () => {
    const server = new URL(process.env.DATABASE_URL ?? 'postgres://unset');
    const database = new URL(server);
    database.pathname = `/petstore_cluster_${randomBytes(6).toString('hex')}`;
    const started: ClusterCommand[] = [];
    afterAll(async () => {
      for (const command of started) {
        const folder = command.keptFolder;
        if (folder) await rm(folder, { recursive: true, force: true });
      }
      const admin = new pg.Client({ connectionString: server.toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database.pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
    });

    it("should pass the caller's environment on, restart an instance on demand, keep the logs, and say so when the admin exists already", async () => {
      const env = async (more: Record<string, string> = {}) => ({
        ...generousRateLimits(),
        DATABASE_URL: database.toString(),
        REDIS_URL: process.env.REDIS_URL!,
        CLUSTER_PORT: String(await freePort()),
        ...more,
      });
      const login = (url: string, password: string) =>
        send(`${url}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password }),
        });

      // The cluster's instances have metrics on unless the caller says otherwise.
      const first = await ClusterCommand.start(await env({ METRICS_ENABLED: 'false' }));
      started.push(first);
      let logsDir: string;
      try {
        const [, url] = await first.printed(/API \(nginx\) +(\S+)\/v1/);
        const [, password] = await first.printed(/admin +admin \/ (\S+)/);
        expect((await login(url, password)).status).toBe(200);
        const [, instanceUrl, pid] = await first.printed(/instances +(\S+) \(pid (\d+)\)/);
        // METRICS_ENABLED reached the instances.
        expect((await send(`${instanceUrl}/metrics`)).status).toBe(404);
        [, logsDir] = await first.printed(/logs +(\S+):/);

        first.type('restart 0');
        const [, newPid] = await first.printed(
          /instance 0 exited with code 0 and is running again, pid (\d+)/,
          120_000,
        );
        expect(newPid).not.toBe(pid);
        expect((await send(`${instanceUrl}/health/ready`)).status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      expect(first.text).toContain(`The logs are kept in ${logsDir}`);
      expect(await readFile(`${logsDir}/instance-0.log`, 'utf8')).toMatch(/Shut down cleanly/);

      // The database is kept: its admin too, whatever password this start generates.
      const second = await ClusterCommand.start(await env());
      started.push(second);
      await second.stop();
      expect(second.text).toMatch(/admin +admin exists already in this database/);
      expect(second.text).not.toMatch(/admin +admin \//);

      const fresh = await ClusterCommand.start(await env(), ['--fresh']);
      started.push(fresh);
      try {
        const [, url] = await fresh.printed(/API \(nginx\) +(\S+)\/v1/);
        const [, password] = await fresh.printed(/admin +admin \/ (\S+)/);
        expect((await login(url, password)).status).toBe(200);
        const [, instanceUrl] = await fresh.printed(/instances +(\S+) \(pid/);
        expect((await send(`${instanceUrl}/metrics`)).status).toBe(200);
      } finally {
        await fresh.stop();
      }
      expect(existsSync(logsDir)).toBe(true);
    });
  });
});
