import { stringify } from 'csv-stringify/sync';
import type { PetResponse } from './dto/pet-response.dto.js';
import { toPetResponse } from './pet.mapper.js';
import type { PetRow } from './sql/pet-reads.sql.js';

export const PET_EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type PetExportFormat = (typeof PET_EXPORT_FORMATS)[number];

/** What each format is sent as; NDJSON is UTF-8 by definition. */
export const PET_EXPORT_CONTENT_TYPES: Record<PetExportFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
};

/** Lists in one CSV field: no tag or photo URL can hold it (tags are words, URLs escape it). */
export const CSV_LIST_SEPARATOR = '|';

type CsvValue = string | number | undefined;

/**
 * The CSV's columns, in this order, each from the pet's JSON: every field of it but its
 * times, which the service sets, and `adoption`, which the export leaves out
 * (docs/api-decisions.md). Typed over PetResponse, so a field added to the pet does not
 * compile until it has its column here: the importer reads the same names (docs/api.md).
 */
const CSV_COLUMNS: {
  [Field in Exclude<keyof PetResponse, 'adoption' | 'createdAt' | 'updatedAt'>]: (
    pet: PetResponse,
  ) => CsvValue;
} = {
  id: (pet) => pet.id,
  name: (pet) => pet.name,
  category: (pet) => pet.category.name,
  status: (pet) => pet.status,
  tags: (pet) => pet.tags.map((tag) => tag.name).join(CSV_LIST_SEPARATOR),
  photoUrls: (pet) => pet.photoUrls.join(CSV_LIST_SEPARATOR),
  age: (pet) => pet.age,
  breed: (pet) => pet.breed,
  description: (pet) => pet.description,
  externalId: (pet) => pet.externalId,
};

export const PET_CSV_COLUMNS = Object.keys(CSV_COLUMNS) as (keyof typeof CSV_COLUMNS)[];

const csvRecord = (pet: PetResponse): CsvValue[] =>
  PET_CSV_COLUMNS.map((column) => CSV_COLUMNS[column](pet));

// RFC 4180 quoting where a field needs it (a comma, a quote, a line break); an absent
// value is an empty field.
const csv = (records: CsvValue[][]) => stringify(records);

function encoded(format: PetExportFormat, pets: PetResponse[]): string {
  switch (format) {
    case 'ndjson':
      return pets.map((pet) => `${JSON.stringify(pet)}\n`).join('');
    case 'csv':
      return csv(pets.map(csvRecord));
  }
}

/**
 * The export's text, a chunk per batch, each pet as `GET /pets/{id}` shows it. The CSV's
 * header row goes with the first batch, so that nothing is sent before the first read has
 * succeeded; an export of no pet is the header alone (CSV) or empty (NDJSON).
 */
export async function* exportChunks(
  batches: AsyncIterable<PetRow[]>,
  format: PetExportFormat,
): AsyncGenerator<string> {
  let header = format === 'csv' ? csv([PET_CSV_COLUMNS]) : '';
  for await (const batch of batches) {
    yield header + encoded(format, batch.map(toPetResponse));
    header = '';
  }
  if (header) yield header;
}
