import { parse } from 'csv-parse';
import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_IMPORT_ROWS } from '../common/contract-limits.js';
import type { PetImportError, PetImportFormat } from './pet-import-status.js';

/** One pet of the file, as the write fields it gives; `category` is a category's name. */
export interface ImportRecord {
  /** 1 for the file's first pet (a CSV header row is not counted). */
  row: number;
  /** Undefined for an NDJSON line that is no JSON object. */
  fields: Record<string, unknown> | undefined;
}

/** What a file holds: its records, or why it cannot be read at all. */
export type ImportFile = { records: ImportRecord[] } | { error: PetImportError };

/** The columns an export writes that an import does not take (the service makes them). */
const IGNORED_FIELDS = new Set(['id', 'createdAt', 'updatedAt', 'adoption']);
/** The CSV columns holding lists, joined with `|` as the export joins them. */
const LIST_COLUMNS = new Set(['tags', 'photoUrls']);
const LIST_SEPARATOR = '|';
const INTEGER_TEXT = /^-?\d+$/;

const tooManyRows = (): PetImportError => ({
  row: MAX_IMPORT_ROWS + 1,
  field: 'file',
  message: `an import holds at most ${MAX_IMPORT_ROWS} rows`,
});

/**
 * Bytes of CSV parsed between two turns of the event loop: the job shares its process with
 * the API, and an 8.3 MB file parsed in one go held every request for seconds on a loaded
 * machine (a status read was cut).
 */
const CSV_BYTES_PER_TURN = 16 * 1024;

/** The file's records: CSV with a header row (a UTF-8 BOM allowed), or one JSON object a line. */
export function readImportFile(file: Buffer, format: PetImportFormat): Promise<ImportFile> {
  return format === 'csv' ? readCsv(file) : Promise.resolve(readNdjson(file));
}

async function readCsv(file: Buffer): Promise<ImportFile> {
  const parser = parse({ bom: true, columns: true, skip_empty_lines: true });
  const cells: Record<string, string>[] = [];
  const read = (async () => {
    for await (const row of parser as AsyncIterable<Record<string, string>>) cells.push(row);
  })();
  // Its error is taken when it is awaited below, or dropped with a parse stopped early.
  read.catch(() => undefined);
  try {
    // A parse that failed has destroyed the parser; the reader throws its error below.
    for (let at = 0; at < file.length && !parser.destroyed; at += CSV_BYTES_PER_TURN) {
      // One past the limit is enough to refuse the file.
      if (cells.length > MAX_IMPORT_ROWS) return { error: tooManyRows() };
      if (!parser.write(file.subarray(at, at + CSV_BYTES_PER_TURN))) await once(parser, 'drain');
      await nextTurn();
    }
    parser.end();
    await read;
  } catch (error) {
    const { records, message } = error as { records?: number; message: string };
    return { error: { row: (records ?? 0) + 1, field: 'file', message } };
  } finally {
    parser.destroy();
  }
  if (cells.length > MAX_IMPORT_ROWS) return { error: tooManyRows() };
  return { records: cells.map((row, index) => ({ row: index + 1, fields: fieldsOfCsv(row) })) };
}

/**
 * An empty cell is a field left out; lists split on `|`; integers as numbers, for `age`.
 * Fields are own properties whatever their names (`__proto__` too), for the checks to refuse.
 */
function fieldsOfCsv(row: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row)
      .filter(([column, text]) => !IGNORED_FIELDS.has(column) && text !== '')
      .map(([column, text]) => [column, cellValue(column, text)]),
  );
}

function cellValue(column: string, text: string): unknown {
  if (LIST_COLUMNS.has(column)) return text.split(LIST_SEPARATOR);
  return column === 'age' && INTEGER_TEXT.test(text.trim()) ? Number(text) : text;
}

function readNdjson(file: Buffer): ImportFile {
  const text = file.toString('utf8').replace(/^\uFEFF/, '');
  const records: ImportRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (records.length === MAX_IMPORT_ROWS) return { error: tooManyRows() };
    records.push({ row: records.length + 1, fields: fieldsOfJson(line) });
  }
  return { records };
}

function fieldsOfJson(line: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => !IGNORED_FIELDS.has(name))
      .map(([name, field]) => [name, fieldValue(name, field)]),
  );
}

/** The export's shapes too: the category and tags as objects with their names. */
function fieldValue(name: string, value: unknown): unknown {
  if (name === 'category') return nameOf(value);
  return name === 'tags' && Array.isArray(value) ? value.map(nameOf) : value;
}

const nameOf = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && 'name' in value ? value.name : value;
