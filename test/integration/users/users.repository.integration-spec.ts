import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EntityManager } from 'typeorm';
import { User } from '../../../src/users/user.entity.js';
import { UsersRepository } from '../../../src/users/users.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/** Enough rows that reading them all costs more than an index, as at a shop's real size. */
const CUSTOMERS = 20_000;

describe(UsersRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: UsersRepository;

  beforeAll(async () => {
    harness = await createRepositoryHarness([UsersRepository], { entities: [User] });
    sut = harness.get(UsersRepository);
    // cust00001..; every tenth disabled, and a member of staff among them.
    await harness.query(
      `INSERT INTO users (username, email, password_hash, role, user_status)
       SELECT 'Cust' || lpad(n::text, 5, '0'), 'cust' || n || '@example.com', 'x', 'customer',
              CASE WHEN n % 10 = 0 THEN 1 ELSE 0 END
         FROM generate_series(1, $1) n`,
      [CUSTOMERS],
    );
    await harness.query(
      `INSERT INTO users (username, email, password_hash, role) VALUES ('cust00001x', 'staff@example.com', 'x', 'user')`,
    );
    await harness.query('ANALYZE users');
  });
  afterAll(async () => {
    await harness.close();
  });

  const usernames = (rows: { username: string }[]) => rows.map((row) => row.username);

  describe('findActiveCustomers', () => {
    it('should find the active customers whose username starts with the prefix in any case, by username, up to the limit', async () => {
      const found = await sut.findActiveCustomers('CUST0000', 'none', 10);

      expect(usernames(found)).toEqual(
        ['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((n) => `Cust0000${n}`),
      );
      expect(found[0]).toEqual({ id: expect.any(Number), username: 'Cust00001' });
      expect(await sut.findActiveCustomers('cust', 'none', 3)).toHaveLength(3);
    });

    it('should find a customer by its whole address in any case, and not by part of it', async () => {
      expect(usernames(await sut.findActiveCustomers('none', 'CUST42@Example.com', 10))).toEqual([
        'Cust00042',
      ]);
      expect(await sut.findActiveCustomers('none', 'cust42@', 10)).toEqual([]);
      // A disabled one is not found by its address either.
      expect(await sut.findActiveCustomers('none', 'cust40@example.com', 10)).toEqual([]);
    });

    it('should match _ and % in the prefix as themselves', async () => {
      expect(await sut.findActiveCustomers('cus_', 'none', 10)).toEqual([]);
      expect(await sut.findActiveCustomers('%', 'none', 10)).toEqual([]);
    });

    it('should read the prefix and the address from indexes, whatever the collation', async () => {
      const statements = jest.spyOn(EntityManager.prototype, 'query');
      await sut.findActiveCustomers('cust0420', 'cust4200@example.com', 10);
      const [sql, params] = statements.mock.calls[0] as [string, unknown[]];
      statements.mockRestore();
      // Planned as the app's is: an unnamed statement, with its parameters' values.
      const plan = async () => {
        const [explained] = await harness.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) ${sql}`,
          params,
        );
        return JSON.stringify(explained['QUERY PLAN']);
      };

      // In the C collation of the test databases, the unique index of usernames serves a
      // prefix too; in another (en_US.utf8, the postgres image's), only the index of
      // text_pattern_ops does. Without the unique index, rolled back, as there:
      const noCollationIndex = new Error('rolled back');
      let planned = '';
      await harness
        .transaction(async () => {
          await harness.query('DROP INDEX "UQ_users_username_lower"');
          planned = await plan();
          throw noCollationIndex;
        })
        .catch((error: unknown) => {
          if (error !== noCollationIndex) throw error;
        });

      expect(planned).toContain('"Index Name":"IDX_users_active_customer_username_prefix"');
      expect(planned).toContain('"Index Name":"UQ_users_email_lower"');
      expect(planned).not.toContain('Seq Scan');
      expect(await plan()).not.toContain('Seq Scan');
    });
  });
});
