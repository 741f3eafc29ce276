import { PET_COLUMNS } from './pet-reads.sql.js';

export type Param = (value: unknown) => string;

/** A statement's parameters, numbered as they are added. */
export function parameters(initial: unknown[] = []): { params: unknown[]; param: Param } {
  const params = [...initial];
  return { params, param: (value) => `$${params.push(value)}` };
}

/** The CTE a write reads the pet back into, and records its events from (`recordEvents`). */
export const READ_BACK = 'readback';

/** Reads back, in the read shape and as the `readback` CTE, what the `changed` CTE wrote. */
export const readBack = (columns = PET_COLUMNS) =>
  `${READ_BACK} AS (SELECT ${columns} FROM changed p JOIN categories c ON c.id = p.category_id)`;
