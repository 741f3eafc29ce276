import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DataDirectoryInUseError, DataDirectoryLock, LOCK_FILE } from './data-dir-lock.js';

describe(DataDirectoryLock.name, () => {
  let dataDir: string;
  let lockFile: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'petstore-lock-'));
    lockFile = join(dataDir, LOCK_FILE);
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('should write its PID in the lock file and remove it on release', () => {
    const sut = DataDirectoryLock.acquire(dataDir);
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.pid}\n`);
    sut.release();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('should refuse a second opener in this process until the first releases', () => {
    const first = DataDirectoryLock.acquire(dataDir);
    expect(() => DataDirectoryLock.acquire(dataDir)).toThrow(DataDirectoryInUseError);
    first.release();
    DataDirectoryLock.acquire(dataDir).release();
  });

  it('should refuse a lock whose process runs, naming it and what to do', () => {
    // The parent of this process (Jest's) runs, and is not this process.
    writeFileSync(lockFile, `${process.ppid}\n`);
    expect(() => DataDirectoryLock.acquire(dataDir)).toThrow(
      `The data directory ${dataDir} is in use by process ${process.ppid}: stop the service first, or run this with another DATA_DIR, or run both on a PostgreSQL server (DATABASE_URL).`,
    );
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.ppid}\n`);
  });

  it.each([
    ['its process is gone', async () => `${await endedPid()}\n`],
    ['it names no process', () => Promise.resolve('')],
    [
      'it names this process, which does not hold it (a restarted container)',
      () => Promise.resolve(`${process.pid}\n`),
    ],
  ])('should take over a lock when %s', async (_, content) => {
    writeFileSync(lockFile, await content());
    const sut = DataDirectoryLock.acquire(dataDir);
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.pid}\n`);
    sut.release();
  });

  it('should leave a lock that another process took over meanwhile', () => {
    const sut = DataDirectoryLock.acquire(dataDir);
    writeFileSync(lockFile, `${process.ppid}\n`);
    sut.release();
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.ppid}\n`);
  });
});

async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('close', done));
  return child.pid!;
}
