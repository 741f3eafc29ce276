import type { PetResponse } from '../dto/pet-response.dto.js';
import type { PetExportFormat } from '../pet-export.js';

/*
 * The export's lines, written by the database (issue 44): rows parsed by the driver, mapped
 * and encoded here cost three times the target's time per pet. Each expression is over pet
 * `p`, its category `c` and its tags as `tg.tags`, as the format's `tags` writes them.
 */

/** A text value as a JSON string, escaped as JSON.stringify escapes it; null stays null. */
const jsonString = (text: string) => `to_json(${text}::text)`;

/** A time as `Date.toISOString` writes it (the columns hold milliseconds, in UTC). */
const isoTime = (time: string) =>
  `'"' || to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;

/**
 * The pet's JSON, member by member in `toPetResponse`'s order, each value as JSON text, null
 * for a field the pet lacks (which the mapper leaves undefined, and so out). Typed over
 * PetResponse: a field added to the pet does not compile until it has its member here. The
 * export's property test holds each line to the list's JSON of the pet, byte for byte.
 */
const JSON_MEMBERS: { [Field in Exclude<keyof PetResponse, 'adoption'>]: string } = {
  // First and never null: it opens the object.
  id: 'p.id',
  name: jsonString('p.name'),
  category: `concat('{"id":', c.id, ',"name":', ${jsonString('c.name')},
                    ',"description":' || ${jsonString('c.description')}, '}')`,
  photoUrls: 'to_json(p.photo_urls)',
  tags: 'tg.tags',
  // An enum of plain words: nothing to escape.
  status: `'"' || p.status || '"'`,
  age: 'p.age',
  breed: jsonString('p.breed'),
  description: jsonString('p.description'),
  externalId: jsonString('p.external_id'),
  createdAt: isoTime('p.created_at'),
  updatedAt: isoTime('p.updated_at'),
};

const jsonLine = `concat(${Object.entries(JSON_MEMBERS)
  .map(([name, value], at) => `'${at === 0 ? '{' : ','}"${name}":' || ${value}`)
  .join(',\n  ')}, E'}\\n')`;

/** Lists in one CSV field: no tag or photo URL can hold it (tags are words, URLs escape it). */
const CSV_LIST_SEPARATOR = '|';

/**
 * A CSV field as csv-stringify writes it: RFC 4180 quoting where the value holds a comma, a
 * quote or a line break; a null is an empty field. Numbers and the status need none. Tested
 * with strpos, a third of a regular expression's time on a long description.
 */
const csvField = (text: string) => {
  const needsQuotes = [`','`, `'"'`, `E'\\n'`, `E'\\r'`]
    .map((special) => `strpos(${text}, ${special}) > 0`)
    .join(' OR ');
  return `CASE WHEN ${needsQuotes} THEN '"' || replace(${text}, '"', '""') || '"' ELSE ${text} END`;
};

/**
 * The CSV's columns, in this order, each from the pet's JSON: every field of it but its
 * times, which the service sets, and `adoption`, which the export leaves out
 * (docs/api-decisions.md). Typed over PetResponse, so a field added to the pet does not
 * compile until it has its column here: the importer reads the same names (docs/api.md).
 */
const CSV_COLUMNS: {
  [Field in Exclude<keyof PetResponse, 'adoption' | 'createdAt' | 'updatedAt'>]: string;
} = {
  id: 'p.id',
  name: csvField('p.name'),
  category: csvField('c.name'),
  status: 'p.status',
  tags: csvField('tg.tags'),
  photoUrls: csvField(`array_to_string(p.photo_urls, '${CSV_LIST_SEPARATOR}')`),
  age: 'p.age',
  breed: csvField('p.breed'),
  description: csvField('p.description'),
  externalId: csvField('p.external_id'),
};

export const PET_CSV_COLUMNS = Object.keys(CSV_COLUMNS) as (keyof typeof CSV_COLUMNS)[];

const csvLine = `concat(${Object.values(CSV_COLUMNS).join(", ',',\n  ")}, E'\\n')`;

/**
 * Per format: a pet's line, and its tags from its `tag_list` (in the list's order, by name)
 * as a sub-query of one row and column `tags`, joined laterally: the CSV field reads its
 * value five times, and the sub-query's aggregate is run once. A line ends with its line break.
 */
export const PET_EXPORT_LINES: Record<PetExportFormat, { line: string; tags: string }> = {
  ndjson: {
    line: jsonLine,
    // The column's text is the JSON the line needs (TAG_LIST).
    tags: 'SELECT p.tag_list::text AS tags',
  },
  csv: {
    line: csvLine,
    tags: `SELECT string_agg(e.tag ->> 'name', '${CSV_LIST_SEPARATOR}' ORDER BY e.at) AS tags
             FROM json_array_elements(p.tag_list) WITH ORDINALITY AS e(tag, at)`,
  },
};
