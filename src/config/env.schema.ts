import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MinLength,
  ValidateBy,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { MAX_UPLOAD_BODY_BYTES } from '../common/contract-limits.js';
import { IntegerText } from '../common/dto/transforms.js';
import { NotAnExampleSecret } from './example-secrets.js';
import { secretWeakness } from './secret-strength.js';
import { USERNAME_PATTERN } from '../common/dto/username.js';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  return value;
};

const withoutSpaces = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.replace(/\s+/g, '') : value;

/**
 * The one schema for every environment variable the service reads.
 * `.env.example` documents each of them; defaults here are the development defaults.
 */
/** REFRESH_TOKEN_TTL_SECONDS's bounds, which the OpenAPI document states too. */
export const REFRESH_TOKEN_TTL_MIN_SECONDS = 60;
export const REFRESH_TOKEN_TTL_MAX_SECONDS = 31_536_000;

/** 32 bytes in standard base64, padded: 43 characters and one `=`. */
const AES_KEY_BASE64 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IntegerText(0, 65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsString()
  DATA_DIR = './data';

  // Production refuses the embedded database unless asked for: it takes one connection at
  // a time, has no statement timeout and lives in the container's file system.
  @ValidateIf(
    (env: EnvironmentVariables) =>
      env.DATABASE_URL !== undefined ||
      (env.NODE_ENV === 'production' && env.ALLOW_EMBEDDED_DATABASE !== true),
  )
  @IsDefined({
    message:
      'is required when NODE_ENV=production; the embedded single-connection database (PGlite) is for development and trials: set ALLOW_EMBEDDED_DATABASE=true to run on it anyway',
  })
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  @NotAnExampleSecret()
  DATABASE_URL?: string;

  /** Lets NODE_ENV=production run without DATABASE_URL, on the embedded database. */
  @Transform(toBoolean)
  @IsBoolean()
  ALLOW_EMBEDDED_DATABASE = false;

  @Transform(toBoolean)
  @IsBoolean()
  DATABASE_MIGRATIONS_RUN = true;

  /**
   * Hot statements as named (prepared) statements; false behind a pooler that cannot keep
   * them per client (PgBouncer in transaction mode before 1.21).
   */
  @Transform(toBoolean)
  @IsBoolean()
  DATABASE_PREPARED_STATEMENTS = true;

  @IntegerText(1, 100)
  DATABASE_POOL_MAX = 10;

  /** Longest wait for a new connection, and for a free one from a full pool. */
  @IntegerText(100, 60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 5_000;

  /** The server cancels a statement that runs longer (migrations are exempt). */
  @IntegerText(100, 600_000)
  DATABASE_STATEMENT_TIMEOUT_MS = 5_000;

  /** The server cancels a search's statement (list or facets) that runs longer: 503. */
  @IntegerText(1, 60_000)
  SEARCH_STATEMENT_TIMEOUT_MS = 200;

  /** An unused pooled connection is closed after this long. */
  @IntegerText(1_000)
  DATABASE_IDLE_TIMEOUT_MS = 30_000;

  /** Longest wait for another instance's migration lock before start-up fails. */
  @IntegerText(100, 3_600_000)
  MIGRATION_LOCK_TIMEOUT_MS = 120_000;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

  /**
   * `open` lets people sign up (docs/mail.md, "Settings"). Unset: open in development,
   * closed when NODE_ENV=production.
   */
  @IsOptional()
  @IsIn(['open', 'closed'])
  REGISTRATION?: 'open' | 'closed';

  /**
   * Hours a sign-up may stay unverified before it is removed, freeing its username and
   * address (docs/identity.md); one hour to a year.
   */
  @IntegerText(1, 8760)
  UNVERIFIED_ACCOUNT_TTL_HOURS = 72;

  /**
   * Single sign-on (docs/identity.md, "Single sign-on"): the OpenID Connect provider's issuer,
   * whose discovery document names its endpoints. Unset: no single sign-on.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  // Plain HTTP would let anyone on the way forge the provider's keys: loopback only.
  @Matches(/^(https:\/\/|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$))/, {
    message: 'must be an https:// URL (http:// only on a loopback address)',
  })
  OIDC_ISSUER?: string;

  @ValidateIf((env: EnvironmentVariables) => env.OIDC_ISSUER !== undefined)
  @IsDefined({ message: 'is required with OIDC_ISSUER' })
  @IsString()
  @Length(1, 500)
  OIDC_CLIENT_ID?: string;

  @ValidateIf((env: EnvironmentVariables) => env.OIDC_ISSUER !== undefined)
  @IsDefined({ message: 'is required with OIDC_ISSUER' })
  @IsString()
  @Length(1, 500)
  @NotAnExampleSecret()
  OIDC_CLIENT_SECRET?: string;

  /** The provider's name on the console's sign-in button. */
  @IsString()
  @Length(1, 60)
  OIDC_DISPLAY_NAME = 'single sign-on';

  /** Comma-separated email domains whose people may sign in; unset: any. */
  @IsOptional()
  @Transform(withoutSpaces)
  @Matches(/^[a-z0-9.-]+(,[a-z0-9.-]+)*$/i, { message: 'must be domains separated by commas' })
  OIDC_ALLOWED_DOMAINS?: string;

  // Open sign-up sends verification mails, which the .eml files of development would keep
  // from the people signing up.
  @ValidateIf(
    (env: EnvironmentVariables) =>
      env.SMTP_URL !== undefined || (env.NODE_ENV === 'production' && env.REGISTRATION === 'open'),
  )
  @IsDefined({
    message:
      'is required when NODE_ENV=production and REGISTRATION=open: sign-up mails must reach people; set SMTP_URL or REGISTRATION=closed',
  })
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  @NotAnExampleSecret()
  SMTP_URL?: string;

  /** The sender of every mail: an address, or `Name <address>`. */
  @Matches(/^([^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, {
    message: 'must be an address or Name <address>',
  })
  MAIL_FROM = 'Pet store <no-reply@petstore.invalid>';

  /** Express `trust proxy`: a hop count, or proxy addresses/subnets separated by commas. */
  @IsOptional()
  @Matches(
    /^(\d+|(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d+)?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d+)?))*)$/,
    {
      message: 'must be a hop count or a comma-separated list of proxy addresses',
    },
  )
  TRUST_PROXY?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  @NotAnExampleSecret()
  REDIS_URL?: string;

  /** Prefix of every Redis key, so that deployments (or test runs) can share one server. */
  @IsString()
  @Matches(/^[\w:.-]{1,64}$/, { message: 'must be 1..64 of letters, digits, _ : . -' })
  REDIS_KEY_PREFIX = 'petstore:';

  @IntegerText(1)
  RATE_LIMIT_API_KEY_PER_HOUR = 1000;

  @IntegerText(1)
  RATE_LIMIT_API_KEY_PER_MINUTE = 100;

  @IntegerText(1)
  RATE_LIMIT_USER_PER_HOUR = 5000;

  @IntegerText(1)
  RATE_LIMIT_USER_PER_MINUTE = 300;

  @IntegerText(1)
  RATE_LIMIT_ANONYMOUS_PER_HOUR = 100;

  @IntegerText(1)
  RATE_LIMIT_ANONYMOUS_PER_MINUTE = 20;

  /** Refused credentials per client address and minute; past it, credentials are not looked up. */
  @IntegerText(1)
  RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE = 20;

  /** GET /rate-limit reads per client address and minute (they spend no caller's budget). */
  @IntegerText(1)
  RATE_LIMIT_BUDGET_READS_PER_MINUTE = 60;

  /** In-memory counters kept at most (two per caller); past it the oldest are forgotten. */
  @IntegerText(1)
  RATE_LIMIT_MEMORY_MAX_COUNTERS = 100_000;

  /** Failed logins for one username that lock it, from any number of addresses. */
  @IntegerText(1)
  LOGIN_LOCKOUT_FAILURES = 10;

  /** How long the window of those failures lasts, and so the lock at most. */
  @IntegerText(1)
  LOGIN_LOCKOUT_SECONDS = 300;

  /** HMAC key for bearer tokens; without it, development keeps a generated one in DATA_DIR. */
  @ValidateIf(
    (env: EnvironmentVariables) => env.NODE_ENV === 'production' || env.JWT_SECRET !== undefined,
  )
  @IsDefined({ message: 'is required when NODE_ENV=production (at least 32 characters)' })
  @IsString()
  @ValidateBy({
    name: 'strongSecret',
    validator: {
      validate: (value: string) => secretWeakness(value) === undefined,
      defaultMessage: (args) => secretWeakness(args?.value as string) ?? '',
    },
  })
  @NotAnExampleSecret()
  JWT_SECRET?: string;

  /**
   * Comma-separated roles whose accounts must sign in with a second factor; unset means
   * `admin` when NODE_ENV=production, none elsewhere. An empty value requires none.
   */
  @IsOptional()
  @Transform(withoutSpaces)
  @Matches(/^((admin|user|customer)(,(admin|user|customer))*)?$/, {
    message: 'must be a comma-separated list of admin, user and customer (or empty)',
  })
  MFA_REQUIRED_ROLES?: string;

  /**
   * AES-256-GCM key (base64 of 32 bytes) that TOTP secrets are stored encrypted with;
   * without it, development derives one from the JWT key.
   */
  @ValidateIf(
    (env: EnvironmentVariables) =>
      env.NODE_ENV === 'production' || env.MFA_ENCRYPTION_KEY !== undefined,
  )
  @IsDefined({ message: 'is required when NODE_ENV=production (base64 of 32 random bytes)' })
  @Matches(AES_KEY_BASE64, { message: 'must be 32 bytes in base64 (`openssl rand -base64 32`)' })
  @NotAnExampleSecret()
  MFA_ENCRYPTION_KEY?: string;

  /**
   * The key MFA_ENCRYPTION_KEY replaced, still read during a rotation: secrets stored with
   * it are re-encrypted with the new key as their codes are accepted.
   */
  @IsOptional()
  @Matches(AES_KEY_BASE64, { message: 'must be 32 bytes in base64 (`openssl rand -base64 32`)' })
  @NotAnExampleSecret()
  MFA_ENCRYPTION_KEY_PREVIOUS?: string;

  @IsString()
  @Length(1, 200)
  JWT_ISSUER = 'petstore';

  @IsString()
  @Length(1, 200)
  JWT_AUDIENCE = 'petstore-api';

  /** Comma-separated; unset means `live,test`, or `live` when NODE_ENV=production. */
  @IsOptional()
  @Transform(withoutSpaces)
  @Matches(/^(live|test)(,(live|test))*$/, {
    message: 'must be a comma-separated list of live and test',
  })
  API_KEY_MODES?: string;

  /** Active API keys a user may hold; at most one page of GET /v1/api-keys (100). */
  @IntegerText(1, 100)
  API_KEYS_PER_USER = 10;

  /**
   * How long an instance trusts what it read of an account (status, role, when its tokens
   * were last invalidated). docs/identity.md gives changes 60 s to reach every instance.
   */
  @IntegerText(0, 60_000)
  ACCESS_STATE_CACHE_TTL_MS = 30_000;

  /**
   * How long a refresh token stays usable, renewed by each refresh (docs/identity.md,
   * Sessions): one minute to one year, default 30 days.
   */
  @IntegerText(REFRESH_TOKEN_TTL_MIN_SECONDS, REFRESH_TOKEN_TTL_MAX_SECONDS)
  REFRESH_TOKEN_TTL_SECONDS = 2_592_000;

  @Matches(USERNAME_PATTERN, { message: 'must be 3 to 32 characters of A-Z a-z 0-9 _ . -' })
  ADMIN_USERNAME = 'admin';

  /** Unset: the first admin gets a random password, printed once in the start-up log. */
  @IsOptional()
  @IsString()
  @Length(8, 128)
  @NotAnExampleSecret()
  ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsEmail()
  ADMIN_EMAIL?: string;

  /** Directory of locally stored images; `${DATA_DIR}/media` when unset. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  MEDIA_DIR?: string;

  /** Image decodes running at once; further uploads wait in a short queue. */
  @IntegerText(1, 64)
  MEDIA_MAX_CONCURRENT_JOBS = 2;

  /**
   * Bytes all uploads in flight may hold in memory together; more is 503. At least one
   * largest upload.
   */
  @IntegerText(MAX_UPLOAD_BODY_BYTES, 4 * 1024 ** 3)
  MEDIA_MAX_BUFFERED_BYTES = 50 * 1024 * 1024;

  /** Longest decode and resize of one upload, in whole seconds (sharp's timeout); then 400. */
  @IntegerText(1, 600)
  MEDIA_PROCESSING_TIMEOUT_SECONDS = 10;

  /** Setting a bucket switches image storage from MEDIA_DIR to S3. */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be a valid S3 bucket name' })
  S3_BUCKET?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  S3_ENDPOINT?: string;

  @IsString()
  @MinLength(1)
  S3_REGION = 'us-east-1';

  // Both or neither: without them the SDK's default credential chain applies.
  @ValidateIf((env: EnvironmentVariables) => env.S3_SECRET_ACCESS_KEY !== undefined)
  @IsString()
  @MinLength(1, { message: 'must be set together with S3_SECRET_ACCESS_KEY' })
  S3_ACCESS_KEY_ID?: string;

  @ValidateIf((env: EnvironmentVariables) => env.S3_ACCESS_KEY_ID !== undefined)
  @IsString()
  @MinLength(1, { message: 'must be set together with S3_ACCESS_KEY_ID' })
  @NotAnExampleSecret()
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style addressing (`endpoint/bucket/key`), as MinIO and most self-hosted servers need. */
  @Transform(toBoolean)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  /** Longest wait for a TCP connection to the bucket's server; then 503. */
  @IntegerText(100, 60_000)
  S3_CONNECT_TIMEOUT_MS = 2_000;

  /** Longest wait for an answer to one S3 request, and longest silence while one streams. */
  @IntegerText(100, 300_000)
  S3_REQUEST_TIMEOUT_MS = 5_000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' = 'info';

  /**
   * `json` or `pretty` (one readable line per message; needs pino-pretty, a development
   * dependency, else JSON). Unset: pretty outside production when standard output is a
   * terminal, JSON otherwise.
   */
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  @Transform(toBoolean)
  @IsBoolean()
  METRICS_ENABLED = false;

  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'must be 16..256 printable characters' })
  @NotAnExampleSecret()
  METRICS_TOKEN?: string;

  /*
   * Tracing (docs/operations.md, "Tracing"): these standard OpenTelemetry variables are read
   * by the preload (src/tracing) before the app starts; they are checked here so that a bad
   * value stops the start like any other. An empty endpoint is the same as none.
   */
  @ValidateIf((_env: EnvironmentVariables, value: unknown) => value !== undefined && value !== '')
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @ValidateIf((_env: EnvironmentVariables, value: unknown) => value !== undefined && value !== '')
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @IsOptional()
  @IsIn([
    'always_on',
    'always_off',
    'traceidratio',
    'parentbased_always_on',
    'parentbased_always_off',
    'parentbased_traceidratio',
  ])
  OTEL_TRACES_SAMPLER?: string;

  /** The ratio of the `traceidratio` samplers. */
  @IsOptional()
  @Matches(/^(0(\.\d+)?|1(\.0+)?)$/, { message: 'must be a ratio from 0 to 1, such as 0.1' })
  OTEL_TRACES_SAMPLER_ARG?: string;

  /** Browser origins allowed by CORS, comma-separated; none when unset. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*$/, {
    message: 'must be a comma-separated list of origins such as https://shop.example.com',
  })
  CORS_ORIGINS?: string;

  /** Longest time a client may take to send a whole request. */
  @IntegerText(1_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /** Longest time a client may take to send the request headers. */
  @IntegerText(1_000)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  /** Open connections at most; further ones are closed at once. Unset: no limit. */
  @IsOptional()
  @IntegerText(1)
  HTTP_MAX_CONNECTIONS?: number;

  /** How long an idle keep-alive connection stays open; keep it above the balancer's. */
  @IntegerText(1_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;

  /** On SIGTERM or SIGINT, the longest wait for in-flight requests before closing anyway. */
  @IntegerText(0, 600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /**
   * On SIGTERM or SIGINT, how long readiness answers 503 while the service still accepts
   * and serves (with `Connection: close`), so that balancers stop sending before the
   * listener closes. Longer than the balancer's keep-alive to the instances.
   */
  @IntegerText(0, 600_000)
  SHUTDOWN_DRAIN_MS = 10_000;

  /**
   * Webhook URLs may resolve to loopback and private addresses (tests, local development).
   * Link-local and cloud metadata addresses stay refused whatever this says.
   */
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = false;

  /** The longest wait before a failed delivery's first retry; it doubles with each retry. */
  @IntegerText(10, 3_600_000)
  WEBHOOKS_RETRY_BASE_MS = 10_000;

  /** Webhook subscriptions one account may own; at most one page of GET /v1/webhooks (100). */
  @IntegerText(1, 100)
  WEBHOOKS_PER_USER = 10;

  /** How often each instance looks for due outbox messages when nothing nudged it. */
  @IntegerText(50, 60_000)
  OUTBOX_POLL_INTERVAL_MS = 1_000;

  /** The wait after an outbox handler's first failure; it doubles with each further one. */
  @IntegerText(10, 600_000)
  OUTBOX_RETRY_BASE_MS = 1_000;

  /** Attempts per outbox message before it is kept as failed for an operator. */
  @IntegerText(1, 100)
  OUTBOX_MAX_ATTEMPTS = 12;

  /**
   * How long a claim holds an outbox message before another instance may take it over; a
   * running job's lease is renewed every third of it.
   */
  @IntegerText(300, 600_000)
  OUTBOX_LEASE_MS = 60_000;

  /** Days an audit log entry is kept before the purge removes it. */
  @IntegerText(1, 36_500)
  AUDIT_RETENTION_DAYS = 365;

  /** Open adoptions (requested or approved) one adopter may have at once. */
  @IntegerText(1, 100)
  ADOPTIONS_OPEN_PER_ADOPTER = 3;

  /** Minutes a request (or an approval) holds the pet before the adoption expires; 72 h. */
  @IntegerText(1, 525_600)
  ADOPTION_HOLD_MINUTES = 4320;

  /** Rows of a catalogue import applied per transaction (its durable cursor moves with each). */
  @IntegerText(1, 5000)
  PET_IMPORT_BATCH_ROWS = 500;
}

export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false, stopAtFirstError: true });
  const lines = errors.map(
    (e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`,
  );
  // The headers are part of the request: a longer headers timeout could never fire.
  if (errors.length === 0 && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    lines.push('  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (lines.length > 0) {
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return env;
}
