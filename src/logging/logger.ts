import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { wantsPrettyLogs } from '../config/observability.config.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER } from '../common/http/header-names.js';
import { traceFields, tracingStarted } from '../tracing/trace-context.js';

export type LogLevel = Level | 'silent';

export interface LoggerOptions {
  level: LogLevel;
  /** Human-readable lines (pino-pretty, a development dependency) instead of JSON. */
  pretty: boolean;
  /** Where the lines go; standard output by default. */
  destination?: DestinationStream;
}

// Secrets a log line must never carry: credentials in request or response headers, and
// the password, token, key, secret and hash fields of bodies, query strings and records.
const SECRET_FIELDS = [
  'password',
  'currentPassword',
  'token',
  'refreshToken',
  'key',
  'apiKey',
  'secret',
  'previousSecret',
  'passwordHash',
  'keyHash',
  'tokenHash',
  'hash',
];
const SECRET_HEADERS = [AUTHORIZATION_HEADER, API_KEY_HEADER, 'Cookie', 'Set-Cookie'].map((name) =>
  name.toLowerCase(),
);
// Where a logged object keeps them: the line itself, and the objects a request's data or a
// record would be logged under. Exact paths only: a path that starts with `*` makes pino
// walk every key of every line and child binding (9 % of a request's CPU when it did).
const FIELD_HOLDERS = ['', 'body.', 'query.', 'req.body.', 'req.query.', 'user.'];
const HEADER_HOLDERS = ['', 'req.', 'res.'];
// A URL with its query string may carry a reset or verification token.
const URLS = ['url', 'req.url', 'req.originalUrl'];
export const REDACTED_PATHS = [
  ...HEADER_HOLDERS.flatMap((holder) =>
    SECRET_HEADERS.map((header) => `${holder}headers["${header}"]`),
  ),
  ...FIELD_HOLDERS.flatMap((holder) => SECRET_FIELDS.map((field) => `${holder}${field}`)),
  ...URLS,
];

const LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Logger options read straight from the environment, for the messages written before
 * the configuration is validated (or when validating it is what failed).
 */
export function startupLoggerOptions(
  env: NodeJS.ProcessEnv = process.env,
  isTerminal = process.stdout.isTTY === true,
): LoggerOptions {
  const level = LEVELS.includes(env.LOG_LEVEL ?? '') ? (env.LOG_LEVEL as LogLevel) : 'info';
  return {
    level,
    pretty: wantsPrettyLogs(env.NODE_ENV ?? 'development', env.LOG_FORMAT, isTerminal),
  };
}

// Said once per process, not by each logger made (start-up's, then the configured one).
let toldPrettyMissing = false;

export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const settings = {
    level: options.level,
    base: { service: 'petstore' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    // The active span's trace_id and span_id on every line written within one, only when
    // the process traces (src/tracing): otherwise no field and no call per line.
    ...(tracingStarted() ? { mixin: traceFields } : {}),
  };
  if (options.pretty) {
    const pretty = await loadPrettyPrinter(options.destination);
    if (pretty) return pino(settings, pretty);
  }
  const logger = options.destination ? pino(settings, options.destination) : pino(settings);
  if (options.pretty && !toldPrettyMissing) {
    toldPrettyMissing = true;
    logger.warn(
      'Readable log lines need pino-pretty, a development dependency that is not installed: the lines stay JSON (LOG_FORMAT=json says so and ends this warning)',
    );
  }
  return logger;
}

/**
 * pino-pretty is a development dependency, imported only when asked for: a production
 * install without it (npm ci --omit=dev) logs JSON lines, LOG_FORMAT=pretty or not.
 */
async function loadPrettyPrinter(
  destination: DestinationStream | undefined,
): Promise<DestinationStream | undefined> {
  try {
    const { default: pretty } = await import('pino-pretty');
    return pretty({
      translateTime: 'SYS:HH:MM:ss.l',
      // One line per message, led by its context ("INFO: [Bootstrap] Listening on ..."); a
      // request's reads "request completed (GET /v1/pets 200, 4 ms) {"requestId":...}".
      messageFormat:
        '{if context}[{context}] {end}{msg}{if method} ({method} {path} {status}, {durationMs} ms){end}',
      ignore: 'pid,hostname,service,context,method,path,status,durationMs',
      singleLine: true,
      // Written at once, so the last lines before process.exit() are not lost.
      sync: true,
      ...(destination ? { destination } : {}),
    });
  } catch {
    return undefined;
  }
}
