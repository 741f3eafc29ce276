import { ApiException } from './api-exception.js';
import {
  isForeignKeyViolation,
  isUniqueViolation,
  violatedConstraint,
  violatedKey,
} from './database-errors.js';

/** A unique index: another row holds the value the request gave this field. */
interface UniqueRule {
  taken: string;
}

/**
 * A foreign key: a write naming a row that does not exist (the key is the referencing
 * `column`'s value), or a delete of a row still referenced (the key is the referenced row's).
 */
interface ForeignKeyRule {
  column: string;
  missing: (key: string) => ApiException;
  stillReferenced: (key: string) => ApiException;
}

/** A rule with its own answer (the database's own code, src/database/schema/, or a unique key the API names). */
interface RefusalRule {
  refused: () => ApiException;
}

/**
 * The constraints a request can break, by the names the migrations give them, and what the
 * client is told: each declared once, here. Any other unique violation is a 409 naming no
 * field (a column is no API field); any other foreign key violation is a bug.
 */
const CONSTRAINT_RULES = new Map<string | undefined, UniqueRule | ForeignKeyRule | RefusalRule>([
  ['UQ_users_username_lower', { taken: 'username' }],
  ['UQ_users_email_lower', { taken: 'email' }],
  ['UQ_categories_name_lower', { taken: 'name' }],
  [
    'UQ_pets_external_id',
    {
      refused: () =>
        new ApiException('EXTERNAL_ID_TAKEN', 'Another pet already has this externalId', {
          field: 'externalId',
        }),
    },
  ],
  [
    'pets_open_adoption',
    {
      refused: () =>
        new ApiException(
          'PET_HAS_OPEN_ADOPTION',
          'The pet has an open adoption; its status moves only through it',
        ),
    },
  ],
  [
    'FK_adoptions_adopter',
    {
      column: 'adopter_id',
      missing: (key) =>
        ApiException.validation([{ field: 'adopterId', message: `user ${key} does not exist` }]),
      stillReferenced: (key) => new ApiException('CONFLICT', `User ${key} has adoptions`),
    },
  ],
  [
    'FK_pets_category',
    {
      column: 'category_id',
      missing: (key) =>
        ApiException.validation([
          { field: 'categoryId', message: `category ${key} does not exist` },
        ]),
      stillReferenced: (key) =>
        new ApiException(
          'CATEGORY_IN_USE',
          `Category ${key} still has pets; move or delete them first`,
        ),
    },
  ],
]);

/** What a client is told of a constraint violation; undefined for any other error. */
export function constraintErrorOf(error: unknown): ApiException | undefined {
  const rule = CONSTRAINT_RULES.get(violatedConstraint(error));
  if (rule && 'refused' in rule) return rule.refused();
  if (isUniqueViolation(error)) {
    return ApiException.taken(rule && 'taken' in rule ? rule.taken : undefined);
  }
  const key = violatedKey(error);
  if (!isForeignKeyViolation(error) || !rule || !('column' in rule) || !key) return undefined;
  return key.columns === rule.column ? rule.missing(key.values) : rule.stillReferenced(key.values);
}
