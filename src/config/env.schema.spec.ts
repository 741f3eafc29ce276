import { describe, expect, it } from '@jest/globals';
import { validateEnv } from './env.schema.js';

describe('validateEnv', () => {
  it('should apply the development defaults to an empty environment', () => {
    expect(validateEnv({})).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      DATA_DIR: './data',
      DATABASE_MIGRATIONS_RUN: true,
      DATABASE_POOL_MAX: 10,
    });
  });

  it('should convert numbers and booleans given as text', () => {
    expect(validateEnv({ PORT: '8080', DATABASE_MIGRATIONS_RUN: 'false' })).toMatchObject({
      PORT: 8080,
      DATABASE_MIGRATIONS_RUN: false,
    });
  });

  it('should default the operational settings', () => {
    expect(validateEnv({})).toMatchObject({
      DATABASE_CONNECT_TIMEOUT_MS: 5000,
      DATABASE_STATEMENT_TIMEOUT_MS: 5000,
      LOG_LEVEL: 'info',
      METRICS_ENABLED: false,
      HTTP_REQUEST_TIMEOUT_MS: 30000,
      HTTP_HEADERS_TIMEOUT_MS: 10000,
      SHUTDOWN_TIMEOUT_MS: 10000,
    });
  });

  it('should bound the image path by default', () => {
    expect(validateEnv({})).toMatchObject({
      S3_CONNECT_TIMEOUT_MS: 2000,
      S3_REQUEST_TIMEOUT_MS: 5000,
      MEDIA_MAX_BUFFERED_BYTES: 50 * 1024 * 1024,
      MEDIA_PROCESSING_TIMEOUT_SECONDS: 10,
    });
  });

  it('should refuse a headers timeout longer than the request timeout', () => {
    expect(() =>
      validateEnv({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_MIGRATIONS_RUN', 'maybe'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '10'],
    ['DATABASE_CONNECT_TIMEOUT_MS', 'soon'],
    ['LOG_LEVEL', 'loud'],
    ['METRICS_ENABLED', 'sometimes'],
    ['METRICS_TOKEN', 'short'],
    ['CORS_ORIGINS', 'shop.example.com'],
    ['CORS_ORIGINS', 'https://a.example.com,*'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['S3_CONNECT_TIMEOUT_MS', '0'],
    ['S3_REQUEST_TIMEOUT_MS', 'forever'],
    ['MEDIA_MAX_BUFFERED_BYTES', String(5 * 1024 * 1024)],
    ['MEDIA_PROCESSING_TIMEOUT_SECONDS', '0.5'],
  ])('should refuse %s=%s with a message naming the variable', (name, value) => {
    expect(() => validateEnv({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment[\\s\\S]*${name}:`),
    );
  });
});
