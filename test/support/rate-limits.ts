/**
 * Every RATE_LIMIT_* variable set to `perWindow`: limits stay on (and are checked on
 * every request) but never refuse, for tests and benchmarks that are about other things.
 */
export function generousRateLimits(perWindow = '1000000'): Record<string, string> {
  return Object.fromEntries([
    ...['API_KEY', 'USER', 'ANONYMOUS'].flatMap((tier) =>
      ['HOUR', 'MINUTE'].map((window) => [`RATE_LIMIT_${tier}_PER_${window}`, perWindow]),
    ),
    ['RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE', perWindow],
    ['RATE_LIMIT_BUDGET_READS_PER_MINUTE', perWindow],
  ]);
}
