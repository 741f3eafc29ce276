import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A request's start in one round trip (src/database/schema/adoptions.sql): the adopter's
 * advisory lock, then the count of its open adoptions and the new adoption's id, in a
 * VOLATILE plpgsql function whose count takes its snapshot after the lock is granted. It was
 * two statements (docs/performance.md, A3).
 */
const REQUEST_START = `CREATE OR REPLACE FUNCTION adoption_request_start(adopter bigint, OUT open_count int, OUT adoption_id bigint)
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(43, (adopter % 2147483647)::int);
  SELECT count(*)::int INTO open_count
    FROM adoptions a WHERE a.adopter_id = adopter AND adoption_is_open(a.status);
  adoption_id := nextval(pg_get_serial_sequence('adoptions', 'id'));
END $$`;

export class StartAdoptionRequestInOneCall1796680000000 implements MigrationInterface {
  name = 'StartAdoptionRequestInOneCall1796680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(REQUEST_START);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION adoption_request_start(bigint)`);
  }
}
