import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Beside `pgdata/`, so that copying or moving the database itself leaves it behind. */
export const LOCK_FILE = 'pgdata.lock';

/** Another live process holds the data directory. */
export class DataDirectoryInUseError extends Error {
  constructor(dataDir: string, owner: number) {
    super(
      `The data directory ${dataDir} is in use by process ${owner}: stop the service first, or run this with another DATA_DIR, or run both on a PostgreSQL server (DATABASE_URL). The embedded database opens in one process at a time.`,
    );
  }
}

// Lock files this process holds. Its own PID in a lock file it does not hold is stale: a
// container's service is often PID 1 again after a restart on the same volume.
const held = new Set<string>();

/**
 * One process at a time in a data directory: PGlite keeps no lock of its own, and a second
 * process opening `pgdata/` works on a copy of the database that the first one overwrites.
 * The lock file holds its owner's PID and appears atomically with it in (a hard link fails
 * when the name exists). A lock whose process is gone (killed, crashed) is taken over.
 */
export class DataDirectoryLock {
  private constructor(
    private readonly path: string,
    private readonly onExit: () => void,
  ) {}

  static acquire(dataDir: string): DataDirectoryLock {
    const dir = resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LOCK_FILE);
    if (held.has(path)) throw new DataDirectoryInUseError(dataDir, process.pid);
    // Two rounds: a stale lock is removed in the first and created anew in the second.
    for (let round = 0; round < 2; round++) {
      if (create(path)) {
        held.add(path);
        // Also when the process ends without stopping the database (the TypeORM CLI).
        const onExit = () => removeOwn(path);
        process.once('exit', onExit);
        return new DataDirectoryLock(path, onExit);
      }
      const owner = ownerOf(path);
      if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
        throw new DataDirectoryInUseError(dataDir, owner);
      }
      // Gone meanwhile, unreadable, or its process is gone. Two processes taking over the
      // same stale lock at the same instant could both win: PostgreSQL takes over a stale
      // postmaster.pid the same way, and a crash followed by two simultaneous starts is rare.
      unlinkIfPresent(path);
    }
    throw new Error(`Could not take the lock ${path}: it keeps reappearing`);
  }

  release(): void {
    if (!held.delete(this.path)) return;
    process.removeListener('exit', this.onExit);
    removeOwn(this.path);
  }
}

/**
 * Creates the lock file with this PID in it; false when it exists. Written under a name of
 * its own first, so that no other process can read the lock before the PID is in.
 */
function create(path: string): boolean {
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${process.pid}\n`);
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkIfPresent(draft);
  }
}

/** Removes the lock unless another process has taken it over meanwhile. */
function removeOwn(path: string): void {
  if (ownerOf(path) === process.pid) unlinkIfPresent(path);
}

function ownerOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Signal 0 checks that the process exists; EPERM means it does, under another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
