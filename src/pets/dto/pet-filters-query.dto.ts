import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { IntegerText } from '../../common/dto/transforms.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

/** Tags a filter may name. */
export const MAX_TAG_FILTERS = 10;
export const MAX_AGE_FILTER = 100;

// A timestamp with its zone (an instant, whatever the server's zone), in the years
// PostgreSQL accepts (there is no year 0).
const ZONED_TIMESTAMP =
  /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** A repeatable query parameter arrives as a string once, an array from twice on. */
const toTrimmedList = ({ value }: { value: unknown }): unknown => {
  const list: unknown = typeof value === 'string' ? [value] : value;
  return Array.isArray(list)
    ? list.map((item: unknown) => (typeof item === 'string' ? item.trim() : item))
    : list;
};

/** A bound of a range: refused when above the other bound, when both are given. */
function NotAbove(other: string) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'notAbove',
      target: target.constructor,
      propertyName: property,
      constraints: [other],
      options: { message: `${property} must not be greater than ${other}` },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const bound = (args.object as Record<string, unknown>)[other];
          return typeof value !== 'number' || typeof bound !== 'number' || value <= bound;
        },
      },
    });
}

/** Terms a `q` may have: words, phrases and exclusions together (contract section 9). */
export const MAX_SEARCH_TERMS = 10;

// A term of `q` as websearch_to_tsquery reads it: a quoted phrase (to its closing quote or
// the end), or a run of letters and digits; `-` right before it, at the start or after a
// space, makes it an exclusion. Anything else only separates terms.
const SEARCH_TERM = /(?<=^|\s)-(?=["\p{L}\p{M}\p{N}])|"[^"]*(?:"|$)|[\p{L}\p{M}\p{N}]+/gu;

/** The terms of `q`, each as an exclusion or not; `or` joins terms and is none. */
export function searchTerms(q: string): { excluded: boolean }[] {
  const terms: { excluded: boolean }[] = [];
  let excluding = false;
  for (const [token] of q.matchAll(SEARCH_TERM)) {
    if (token === '-') {
      excluding = true;
      continue;
    }
    if (!excluding && token.toLowerCase() === 'or') continue;
    terms.push({ excluded: excluding });
    excluding = false;
  }
  return terms;
}

/** `q`'s bounds: at most MAX_SEARCH_TERMS terms, and one of them not an exclusion. */
function SearchTerms() {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'searchTerms',
      target: target.constructor,
      propertyName: property,
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') return true;
          const terms = searchTerms(value);
          return (
            terms.length <= MAX_SEARCH_TERMS &&
            (terms.length === 0 || terms.some((term) => !term.excluded))
          );
        },
        defaultMessage(args: ValidationArguments) {
          const terms = searchTerms(String(args.value));
          return terms.length > MAX_SEARCH_TERMS
            ? `${property} must have at most ${MAX_SEARCH_TERMS} terms (words, "phrases" and -exclusions together; ${terms.length} given)`
            : `${property} must have a word or phrase to find, not only -exclusions`;
        },
      },
    });
}

/** The filters of GET /pets and GET /pets/facets (contract section 8, docs/api.md). */
export class PetFiltersQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 50,
    description: 'Category name, any case; an unknown name gives an empty page',
  })
  @IsOptional()
  @IsString()
  @Length(1, 50)
  category?: string;

  @ApiPropertyOptional({ enum: PET_STATUSES })
  @IsOptional()
  @IsIn(PET_STATUSES)
  status?: PetStatus;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description:
      'Search the name, breed, tags, category name and description, web-search syntax: ' +
      'words (all of them), "a phrase", -word (without it), `or`. English stemming, ' +
      'accents ignored; a misspelt name or breed word (`labrdor`) finds the nearest ones ' +
      '(the first 3 misspelt words; the rest match as written). At most 10 terms (words, ' +
      '"phrases" and -exclusions; `or` is none), not only exclusions.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @Matches(/\S/, { message: 'q must contain a word' })
  @SearchTerms()
  q?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 50 },
    maxItems: MAX_TAG_FILTERS,
    description: 'Repeatable (`tag=a&tag=b`): pets with all of these tags, any case',
  })
  @IsOptional()
  @Transform(toTrimmedList)
  @IsArray()
  @ArrayMaxSize(MAX_TAG_FILTERS)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  tag?: string[];

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'Exactly this breed, any case',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  breed?: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: MAX_AGE_FILTER,
    description:
      'Pets at least this old (years); not above maxAge. Pets without an age never match',
  })
  @IsOptional()
  @IntegerText(0, MAX_AGE_FILTER)
  @NotAbove('maxAge')
  minAge?: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: MAX_AGE_FILTER,
    description: 'Pets at most this old (years)',
  })
  @IsOptional()
  @IntegerText(0, MAX_AGE_FILTER)
  maxAge?: number;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 32,
    description: 'Pets created after this instant (exclusive); RFC 3339, with its zone',
  })
  @IsOptional()
  @IsString()
  @Matches(ZONED_TIMESTAMP, { message: 'createdAfter must be a timestamp with a zone' })
  @IsISO8601({ strict: true })
  createdAfter?: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 32,
    description: 'Pets created before this instant (exclusive); RFC 3339, with its zone',
  })
  @IsOptional()
  @IsString()
  @Matches(ZONED_TIMESTAMP, { message: 'createdBefore must be a timestamp with a zone' })
  @IsISO8601({ strict: true })
  createdBefore?: string;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'The pet with exactly this externalId (case matters)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  externalId?: string;
}

/** A sort that needs another parameter: refused without it. */
export function OnlyWith(value: string, other: string) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'onlyWith',
      target: target.constructor,
      propertyName: property,
      constraints: [value, other],
      options: { message: `${property} ${value} needs ${other}` },
      validator: {
        validate(sent: unknown, args: ValidationArguments) {
          return sent !== value || (args.object as Record<string, unknown>)[other] !== undefined;
        },
      },
    });
}
