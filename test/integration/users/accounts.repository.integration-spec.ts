import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountsRepository } from '../../../src/users/accounts/accounts.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

const HOUR = 3600;
const onServer = process.env.DATABASE_URL ? it : it.skip;

let hashes = 0;
/** A distinct 64-character hash, as SHA-256 hex would be. */
const newHash = () => (hashes += 1).toString(16).padStart(64, '0');

let addresses = 0;
const newAddress = () => `someone${(addresses += 1)}@example.com`;

describe(AccountsRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: AccountsRepository;
  let userId: number;
  let otherUserId: number;

  beforeAll(async () => {
    harness = await createRepositoryHarness([AccountsRepository]);
    sut = harness.get(AccountsRepository);
    const insertUser = async (name: string) => {
      const [row] = await harness.query<{ id: number }>(
        `INSERT INTO users (username, email, password_hash) VALUES ($1, $2, 'x') RETURNING id`,
        [name, `${name}@example.com`],
      );
      return Number(row.id);
    };
    userId = await insertUser('alice');
    otherUserId = await insertUser('bob');
  });
  afterAll(async () => {
    await harness.close();
  });

  async function token(
    purpose: 'verify-email' | 'reset-password' | 'invitation' | 'email-change',
    owner = userId,
    email: string | null = null,
  ): Promise<string> {
    const tokenHash = newHash();
    await sut.insertToken({ tokenHash, purpose, userId: owner, email, ttlSeconds: HOUR });
    return tokenHash;
  }

  describe('useToken', () => {
    it('should use a token once, answering its user, purpose and address', async () => {
      const hash = await token('email-change', userId, 'new@example.com');

      expect(await sut.useToken(hash, ['verify-email', 'email-change'])).toEqual({
        userId,
        purpose: 'email-change',
        email: 'new@example.com',
      });
      expect(await sut.useToken(hash, ['verify-email', 'email-change'])).toBeUndefined();
    });

    it('should match nothing for another purpose, an expired or an unknown token', async () => {
      const reset = await token('reset-password');
      const expired = await token('verify-email');
      await harness.query(
        `UPDATE account_tokens SET expires_at = now() - interval '1 ms' WHERE token_hash = $1`,
        [expired],
      );

      expect(await sut.useToken(reset, ['verify-email', 'email-change'])).toBeUndefined();
      expect(await sut.useToken(expired, ['verify-email'])).toBeUndefined();
      expect(await sut.useToken(newHash(), ['verify-email'])).toBeUndefined();
      // The refusal on another route did not spend it.
      expect(await sut.useToken(reset, ['reset-password', 'invitation'])).toBeDefined();
    });

    it('should spend the user’s other tokens of those purposes, and nobody else’s', async () => {
      const older = await token('invitation');
      const other = await token('verify-email');
      const othersReset = await token('reset-password', otherUserId);
      const used = await token('reset-password');

      await sut.useToken(used, ['reset-password', 'invitation']);

      expect(await sut.useToken(older, ['reset-password', 'invitation'])).toBeUndefined();
      expect(await sut.useToken(other, ['verify-email'])).toBeDefined();
      expect(await sut.useToken(othersReset, ['reset-password'])).toBeDefined();
    });
  });

  describe('takeMailQuota', () => {
    const take = (address: string, scope = 'all') => sut.takeMailQuota(address, scope, 3, HOUR);

    it('should allow 3 mails an hour to an address, whatever its case, then refuse', async () => {
      const address = newAddress();

      const answers = [];
      for (const sent of [address, address.toUpperCase(), address, address.toUpperCase()]) {
        answers.push(await harness.transaction(() => take(sent)));
      }

      expect(answers).toEqual([true, true, true, false]);
      expect(await harness.transaction(() => take(newAddress()))).toBe(true);
    });

    it('should count each scope of an address apart', async () => {
      const address = newAddress();
      for (let i = 0; i < 3; i++) await harness.transaction(() => take(address, 'from:ip:a'));

      expect(await harness.transaction(() => take(address, 'from:ip:a'))).toBe(false);
      expect(await harness.transaction(() => take(address, 'from:ip:b'))).toBe(true);
      expect(await harness.transaction(() => take(address))).toBe(true);
    });

    it('should tell when the room for one more mail comes, and keep one owed mail', async () => {
      const address = newAddress();
      for (let i = 0; i < 3; i++) await harness.transaction(() => take(address));
      await harness.query(
        `UPDATE mail_quotas SET sent_at[1] = now() - interval '50 minutes' WHERE address = $1`,
        [address],
      );
      const room = await harness.transaction(() => sut.msUntilMailRoom(address, 'all', 3, HOUR));

      expect(room).toBeGreaterThan(9 * 60_000);
      expect(room).toBeLessThanOrEqual(10 * 60_000);
      expect(await harness.transaction(() => sut.msUntilMailRoom(address, 'all', 4, HOUR))).toBe(0);
      expect(await harness.transaction(() => sut.oweMail(address, 'owed:reset'))).toBe(true);
      expect(await harness.transaction(() => sut.oweMail(address, 'owed:reset'))).toBe(false);
      expect(await harness.transaction(() => sut.joinOwedMail(address, 'owed:reset'))).toBe(true);
      await harness.transaction(() => sut.settleMail(address.toUpperCase(), 'owed:reset'));
      expect(await harness.transaction(() => sut.joinOwedMail(address, 'owed:reset'))).toBe(false);
    });

    it('should allow one more as each counted mail leaves the window', async () => {
      const address = newAddress();
      for (let i = 0; i < 3; i++) await harness.transaction(() => take(address));
      await harness.query(
        `UPDATE mail_quotas SET sent_at[1] = now() - interval '61 minutes' WHERE address = $1`,
        [address],
      );

      expect(await harness.transaction(() => take(address))).toBe(true);
      expect(await harness.transaction(() => take(address))).toBe(false);
    });

    it('should forget addresses whose last mail left the window', async () => {
      const stale = newAddress();
      await harness.transaction(() => take(stale));
      await harness.query(
        `UPDATE mail_quotas SET sent_at = ARRAY[now() - interval '3 hours'],
                last_sent_at = now() - interval '3 hours' WHERE address = $1`,
        [stale],
      );

      await harness.transaction(() => take(newAddress()));

      expect(
        await harness.query('SELECT address FROM mail_quotas WHERE address = $1', [stale]),
      ).toEqual([]);
    });

    onServer('should count concurrent requests for one address exactly', async () => {
      const address = newAddress();

      // Transactions on the pool's connections at once, as requests on several instances.
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map(() => harness.transaction(() => take(address))),
      );

      expect(answers.filter(Boolean)).toHaveLength(3);
    });
  });
});
