/** Counts that are bounded only by the size of the data (totals, offsets, byte sizes). */
export const COUNT_SCHEMA = {
  type: 'integer',
  format: 'int64',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;
