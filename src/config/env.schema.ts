import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MinLength,
  Max,
  Min,
  ValidateIf,
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

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

  /** Directory of locally stored images; `${DATA_DIR}/media` when unset. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  MEDIA_DIR?: string;

  /** Image decodes running at once; further uploads wait in a short queue. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  MEDIA_MAX_CONCURRENT_JOBS = 2;

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
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style addressing (`endpoint/bucket/key`), as MinIO and most self-hosted servers need. */
  @Transform(toBoolean)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;
}

export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return env;
}

/** Reads and validates `process.env`; every config namespace starts here. */
export function readEnv(): EnvironmentVariables {
  return validateEnv(process.env);
}
