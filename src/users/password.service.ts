import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { argon2id, hash, verify, type HashOptions } from 'argon2';

/**
 * argon2id with OWASP's first recommended configuration (19 MiB, 2 passes, 1 lane):
 * Password Storage Cheat Sheet.
 */
const OPTIONS: HashOptions = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

@Injectable()
export class PasswordService {
  /** A hash of nothing anyone knows, verified against when a login names no user. */
  private readonly dummyHash = hash(randomUUID(), OPTIONS);

  hashPassword(password: string): Promise<string> {
    return hash(password, OPTIONS);
  }

  /**
   * Verifies against the user's hash, or, when there is no such user, against a dummy
   * hash with the same parameters, so that both cases take about the same time.
   */
  async verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
    const matches = await this.verifyHash(stored ?? (await this.dummyHash), password);
    return stored !== undefined && matches;
  }

  /** The argon2 work of every password check, its own method so that tests can count it. */
  verifyHash(hash: string, password: string): Promise<boolean> {
    return verify(hash, password);
  }
}
