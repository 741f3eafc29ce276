/** What a caught value says, for a log line: an Error's message, anything else as text. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** Where a caught value came from, for the log of a failure: an Error's stack, else its text. */
export const stackOf = (error: unknown): string =>
  (error instanceof Error ? error.stack : undefined) ?? messageOf(error);
