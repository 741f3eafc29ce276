import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pet's tags in its row (`tag_list`, issue 46): reads take the column instead of
 * aggregating `pet_tags` and `tags` per pet, which stay for filters, counters and search.
 * `json`, not `jsonb`, for its text: JSON.stringify's, which the export copies into its lines.
 * The backfill is one UPDATE of the pets with links (a new version of each: at 1,000,000
 * pets, see docs/data-access.md).
 */
export class KeepPetTagsInRow1796720000000 implements MigrationInterface {
  name = 'KeepPetTagsInRow1796720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pets" ADD "tag_list" json NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `UPDATE pets p SET tag_list = l.tag_list
         FROM (SELECT pt.pet_id,
                      ('[' || string_agg(concat('{"id":', t.id, ',"name":', to_json(t.name::text), '}'), ','
                                         ORDER BY t.name) || ']')::json AS tag_list
                 FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
                GROUP BY pt.pet_id) l
        WHERE p.id = l.pet_id`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pets" DROP COLUMN "tag_list"`);
  }
}
