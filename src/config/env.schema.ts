import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  return value;
};

const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/**
 * The one schema for every environment variable the service reads.
 * `.env.example` documents each of them; defaults here are the development defaults.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsString()
  DATA_DIR = './data';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @Transform(toBoolean)
  @IsBoolean()
  DATABASE_MIGRATIONS_RUN = true;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_MAX = 10;

  /** Longest wait for a new connection, and for a free one from a full pool. */
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 5_000;

  /** The server cancels a statement that runs longer (migrations are exempt). */
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_STATEMENT_TIMEOUT_MS = 5_000;

  /** An unused pooled connection is closed after this long. */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  DATABASE_IDLE_TIMEOUT_MS = 30_000;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

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
  REDIS_URL?: string;

  /** Prefix of every Redis key, so that deployments (or test runs) can share one server. */
  @IsString()
  @Matches(/^[\w:.-]{1,64}$/, { message: 'must be 1..64 of letters, digits, _ : . -' })
  REDIS_KEY_PREFIX = 'petstore:';

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_API_KEY_PER_HOUR = 1000;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_API_KEY_PER_MINUTE = 100;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_USER_PER_HOUR = 5000;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_USER_PER_MINUTE = 300;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ANONYMOUS_PER_HOUR = 100;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ANONYMOUS_PER_MINUTE = 20;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' = 'info';

  @Transform(toBoolean)
  @IsBoolean()
  METRICS_ENABLED = false;

  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'must be 16..256 printable characters' })
  METRICS_TOKEN?: string;

  /** Browser origins allowed by CORS, comma-separated; none when unset. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*$/, {
    message: 'must be a comma-separated list of origins such as https://shop.example.com',
  })
  CORS_ORIGINS?: string;

  /** Longest time a client may take to send a whole request. */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /** Longest time a client may take to send the request headers. */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  /** How long an idle keep-alive connection stays open; keep it above the balancer's. */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;

  /** On SIGTERM or SIGINT, the longest wait for in-flight requests before closing anyway. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;
}

export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
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

/** Reads and validates `process.env`; every config namespace starts here. */
export function readEnv(): EnvironmentVariables {
  return validateEnv(process.env);
}
