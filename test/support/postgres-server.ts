import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

interface Owner {
  uid: number;
  gid: number;
}

/**
 * A throw-away PostgreSQL server of the test's own: its own initdb in a temporary
 * directory and its own port, which the test may stop, freeze and restart without
 * touching the machine's shared server. Run as the `postgres` OS user when the tests run
 * as root, since PostgreSQL refuses to run as root.
 */
export class TestPostgresServer {
  private process?: ChildProcess;
  private frozen = false;

  private constructor(
    private readonly bin: string,
    private readonly dataDir: string,
    private readonly owner: Owner | undefined,
    readonly port: number,
  ) {}

  /** Why the server cannot be run here, or undefined when it can. */
  static unavailableReason(): string | undefined {
    if (!binDir()) return 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin';
    if (process.getuid?.() === 0 && !postgresUser()) {
      return 'running as root without a postgres user';
    }
    return undefined;
  }

  static async start(): Promise<TestPostgresServer> {
    const bin = binDir()!;
    const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-pg-'));
    if (owner) await chown(dataDir, owner.uid, owner.gid);
    const initdb = spawnSync(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { cwd: tmpdir(), encoding: 'utf8', ...owner },
    );
    if (initdb.status !== 0) throw new Error(`initdb failed: ${initdb.stderr}`);
    const server = new TestPostgresServer(bin, dataDir, owner, await freePort());
    await server.restart();
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async restart(): Promise<void> {
    this.process = spawn(
      join(this.bin, 'postgres'),
      [
        ...['-D', this.dataDir, '-p', String(this.port), '-k', this.dataDir],
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=60'],
      ],
      { cwd: tmpdir(), stdio: 'ignore', ...this.owner },
    );
    await waitUntilAccepting(this.url);
  }

  /** Fast shutdown: clients are disconnected, the data is kept. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
  }

  /** Stops every server process: connections stay open and nothing answers. */
  freeze(): void {
    const postmaster = this.process!.pid!;
    signal(postmaster, 'SIGSTOP');
    for (const pid of childrenOf(postmaster)) signal(pid, 'SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    const postmaster = this.process!.pid!;
    for (const pid of childrenOf(postmaster)) signal(pid, 'SIGCONT');
    signal(postmaster, 'SIGCONT');
    this.frozen = false;
  }

  async destroy(): Promise<void> {
    if (this.frozen) this.thaw();
    await this.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** Signals a process that may have exited meanwhile. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

function postgresUser(): Owner | undefined {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The server's backends and auxiliary processes, read from /proc. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Fields after the parenthesised command name: state, then the parent's pid.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitUntilAccepting(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
