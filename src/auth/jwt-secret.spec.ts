import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JWT_SECRET_FILE, resolveJwtSecret } from './jwt-secret.js';

describe(resolveJwtSecret.name, () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-jwt-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('should use JWT_SECRET when it is set', async () => {
    const secret = 'x'.repeat(40);
    const key = await resolveJwtSecret({ jwtSecret: secret, dataDir, production: true });
    expect(key.type).toBe('secret');
    expect(key.export().toString('utf8')).toBe(secret);
  });

  it('should refuse to start in production without JWT_SECRET', async () => {
    await expect(
      resolveJwtSecret({ jwtSecret: undefined, dataDir, production: true }),
    ).rejects.toThrow('JWT_SECRET is required when NODE_ENV=production');
  });

  it('should generate a secret once, readable only by its owner, and reuse it', async () => {
    const first = await resolveJwtSecret({ jwtSecret: undefined, dataDir, production: false });
    const second = await resolveJwtSecret({ jwtSecret: undefined, dataDir, production: false });
    const file = join(dataDir, JWT_SECRET_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.export().equals(second.export())).toBe(true);
    expect((await readFile(file, 'utf8')).length).toBeGreaterThanOrEqual(32);
  });

  it.each([
    ['too short', 'short', 'must be at least 32 characters long'],
    ['a repeated character', 'x'.repeat(48), 'is too predictable'],
  ])('should refuse a stored secret that is %s', async (_, stored, message) => {
    await writeFile(join(dataDir, JWT_SECRET_FILE), stored);
    await expect(
      resolveJwtSecret({ jwtSecret: undefined, dataDir, production: false }),
    ).rejects.toThrow(message);
  });
});
