import type { MigrationInterface, QueryRunner } from 'typeorm';

// As AddPetSearch wrote it, for down().
const UNBOUNDED = `
  CREATE OR REPLACE FUNCTION "pet_search_query"(search text) RETURNS tsquery
  LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
  DECLARE
    result tsquery := websearch_to_tsquery('pet_search', search);
    lexeme text;
    nearest text;
  BEGIN
    FOR lexeme IN
      SELECT DISTINCT m[1] FROM regexp_matches(result::text, '''([[:alnum:]]{3,})''', 'g') AS m
    LOOP
      CONTINUE WHEN lexeme !~ '[[:alpha:]]'
        OR EXISTS (SELECT 1 FROM pet_documents WHERE document @@ lexeme::tsquery);
      SELECT string_agg(word, ' | ') INTO nearest
        FROM (SELECT word FROM search_words WHERE word % lexeme
               ORDER BY similarity(word, lexeme) DESC, word LIMIT 3) AS w;
      CONTINUE WHEN nearest IS NULL;
      result := ts_rewrite(result, lexeme::tsquery, (lexeme || ' | ' || nearest)::tsquery);
    END LOOP;
    RETURN result;
  END $$`;

/**
 * Typo tolerance bounded by the query, not by the vocabulary (contract section 9): only the
 * first 3 unknown words of a `q`, in the order written, are looked up among the nearest
 * name and breed words; the rest must match as written. Each look-up scans the trigram
 * index of a vocabulary that only grows, so a `q` of 40 unknown words cost 40 of them.
 */
export class BoundSearchTypos1796540000000 implements MigrationInterface {
  name = 'BoundSearchTypos1796540000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_search_query"(search text) RETURNS tsquery
      LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
      DECLARE
        result tsquery := websearch_to_tsquery('pet_search', search);
        lexeme text;
        nearest text;
        looked_up int := 0;
      BEGIN
        FOR lexeme IN
          SELECT m[1] FROM regexp_matches(result::text, '''([[:alnum:]]{3,})''', 'g')
                           WITH ORDINALITY AS r(m, n)
           GROUP BY m[1] ORDER BY min(n)
        LOOP
          EXIT WHEN looked_up = 3;
          CONTINUE WHEN lexeme !~ '[[:alpha:]]'
            OR EXISTS (SELECT 1 FROM pet_documents WHERE document @@ lexeme::tsquery);
          looked_up := looked_up + 1;
          SELECT string_agg(word, ' | ') INTO nearest
            FROM (SELECT word FROM search_words WHERE word % lexeme
                   ORDER BY similarity(word, lexeme) DESC, word LIMIT 3) AS w;
          CONTINUE WHEN nearest IS NULL;
          result := ts_rewrite(result, lexeme::tsquery, (lexeme || ' | ' || nearest)::tsquery);
        END LOOP;
        RETURN result;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(UNBOUNDED);
  }
}
