interface DriverError {
  code?: string;
  constraint?: string;
  detail?: string;
  message?: string;
}

// SQLSTATE classes and socket errors that mean "the database is not there right now".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '57014', // query_canceled: our statement timeout fired
  '53300', // too_many_connections
]);
/** The read timeout's message (`PgClient`): the server did not answer at all (stopped, frozen). */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Connection is not established',
  'Client has encountered a connection error',
  QUERY_READ_TIMEOUT,
];

function driverErrorOf(error: unknown): DriverError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const wrapped = (error as { driverError?: DriverError }).driverError;
  return wrapped ?? error;
}

export function isUniqueViolation(error: unknown): boolean {
  return driverErrorOf(error)?.code === '23505';
}

/** The constraint a violation names, e.g. a foreign key's. */
export function violatedConstraint(error: unknown): string | undefined {
  return driverErrorOf(error)?.constraint;
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = driverErrorOf(error)?.code;
  return code === '23503' || code === '23001'; // foreign_key_violation, restrict_violation
}

/**
 * The key a constraint violation reports, read from PostgreSQL's `Key (col)=(value)` detail:
 * a foreign key names its referencing column on a write, the referenced one on a delete.
 */
export function violatedKey(error: unknown): { columns: string; values: string } | undefined {
  const match = /^Key \((.+)\)=\((.*)\)/.exec(driverErrorOf(error)?.detail ?? '');
  return match ? { columns: match[1], values: match[2] } : undefined;
}

// The transaction lost to a concurrent one (serialization_failure, deadlock_detected): the
// request was fine, and sending it again is expected to succeed.
const TRANSACTION_CONFLICT_CODES = new Set(['40001', '40P01']);

export function isTransactionConflict(error: unknown): boolean {
  const code = driverErrorOf(error)?.code;
  return code !== undefined && TRANSACTION_CONFLICT_CODES.has(code);
}

/** The server cancelled a statement: its statement time-out fired (query_canceled). */
export function isStatementCancelled(error: unknown): boolean {
  return driverErrorOf(error)?.code === '57014';
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const driverError = driverErrorOf(error);
  if (!driverError) return false;
  if (
    driverError.code &&
    (UNAVAILABLE_CODES.has(driverError.code) || driverError.code.startsWith('08'))
  ) {
    return true;
  }
  const message = driverError.message ?? '';
  return UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}
