import { Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A name or breed lexeme with a letter, written only by the triggers of
 * src/database/schema/pet-search.sql: what `pet_search_query` widens a typo to.
 */
@Entity({ name: 'search_words' })
// GIN with gin_trgm_ops, which the entity cannot state: migration AddPetSearch.
@Index('IDX_search_words_trgm', { synchronize: false })
export class SearchWord {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'search_words_pkey' })
  word: string;
}
