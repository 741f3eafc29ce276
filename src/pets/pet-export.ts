import { joinedInChunks } from '../common/http/stream-response.js';
import { PET_CSV_COLUMNS } from './sql/pet-export.sql.js';

export { PET_CSV_COLUMNS };

export const PET_EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type PetExportFormat = (typeof PET_EXPORT_FORMATS)[number];

/** What each format is sent as; NDJSON is UTF-8 by definition. */
export const PET_EXPORT_CONTENT_TYPES: Record<PetExportFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
};

const CSV_HEADER = `${PET_CSV_COLUMNS.join(',')}\n`;

/**
 * The export's text, in chunks of the batches' lines as the database wrote them
 * (sql/pet-export.sql.ts), each pet as `GET /pets/{id}` shows it. The CSV's header row goes
 * with the first batch, so that nothing is sent before the first read has succeeded; an
 * export of no pet is the header alone (CSV) or empty (NDJSON).
 */
export async function* exportChunks(
  batches: AsyncIterable<string[]>,
  format: PetExportFormat,
): AsyncGenerator<string> {
  let header = format === 'csv' ? CSV_HEADER : '';
  for await (const lines of batches) {
    if (header) lines.unshift(header);
    yield* joinedInChunks(lines);
    header = '';
  }
  if (header) yield header;
}
