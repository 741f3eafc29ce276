/** An import's life: queued, validating every row, applying them, then one of the last three. */
export const PET_IMPORT_STATUSES = [
  'queued',
  'validating',
  'running',
  'succeeded',
  'failed',
  'cancelled',
] as const;
export type PetImportStatus = (typeof PET_IMPORT_STATUSES)[number];

/** The statuses a cancel may end: the import has not finished yet. */
export const UNFINISHED_STATUSES: readonly PetImportStatus[] = ['queued', 'validating', 'running'];

export const PET_IMPORT_MODES = ['create', 'upsert'] as const;
export type PetImportMode = (typeof PET_IMPORT_MODES)[number];

export const PET_IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type PetImportFormat = (typeof PET_IMPORT_FORMATS)[number];

/** What the rows of an import came to; every count is of rows of the file. */
export interface PetImportCounts {
  rows: number;
  valid: number;
  invalid: number;
  created: number;
  updated: number;
  unchanged: number;
}

export const NO_COUNTS: PetImportCounts = {
  rows: 0,
  valid: 0,
  invalid: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
};

/** A row the import refused; `row` 1 is the file's first pet (a CSV header is not counted). */
export interface PetImportError {
  row: number;
  field: string;
  message: string;
}

/** The errors an import keeps to show: the first ones, by row. */
export const MAX_SHOWN_ERRORS = 1000;
