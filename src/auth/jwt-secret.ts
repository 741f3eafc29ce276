import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AuthConfig } from '../config/auth.config.js';
import { secretWeakness } from '../config/secret-strength.js';

export const JWT_SECRET_FILE = 'jwt-secret';

/**
 * The HMAC key as a KeyObject: jsonwebtoken re-imports a string or Buffer secret on
 * every call, which costs far more than the HMAC itself (auth0/node-jsonwebtoken#966).
 * Without JWT_SECRET (refused in production by the env schema), a random secret is
 * generated once and kept in the data directory, so tokens survive a restart.
 */
export async function resolveJwtSecret(
  cfg: Pick<AuthConfig, 'jwtSecret' | 'dataDir' | 'production'>,
): Promise<KeyObject> {
  if (cfg.jwtSecret !== undefined) return createSecretKey(Buffer.from(cfg.jwtSecret, 'utf8'));
  if (cfg.production) throw new Error('JWT_SECRET is required when NODE_ENV=production');
  const dir = resolve(cfg.dataDir);
  const file = join(dir, JWT_SECRET_FILE);
  await mkdir(dir, { recursive: true });
  try {
    // 'wx': of two instances starting together, one writes and the other reads its secret.
    await writeFile(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(file, 'utf8')).trim();
  // The file may have been edited by hand: it must pass JWT_SECRET's rules.
  const weakness = secretWeakness(secret);
  if (weakness) throw new Error(`The secret in ${file} ${weakness}`);
  return createSecretKey(Buffer.from(secret, 'utf8'));
}
