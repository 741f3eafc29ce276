import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { authConfig } from './auth.config.js';
import { databaseConfig } from './database.config.js';
import { validateEnv } from './env.schema.js';
import { mailConfig } from './mail.config.js';
import { oidcConfig } from './oidc.config.js';

const STRONG_SECRET = randomBytes(32).toString('base64url');
const MFA_KEY = randomBytes(32).toString('base64');

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
      SEARCH_STATEMENT_TIMEOUT_MS: 200,
      LOG_LEVEL: 'info',
      LOG_FORMAT: undefined,
      METRICS_ENABLED: false,
      HTTP_REQUEST_TIMEOUT_MS: 30000,
      HTTP_HEADERS_TIMEOUT_MS: 10000,
      SHUTDOWN_TIMEOUT_MS: 10000,
      // Longer than a balancer's keep-alive (nginx's here: 4 s): SIGTERM alone loses nothing.
      SHUTDOWN_DRAIN_MS: 10000,
      MIGRATION_LOCK_TIMEOUT_MS: 120000,
      ALLOW_EMBEDDED_DATABASE: false,
    });
  });

  it('should bound the credential settings', () => {
    expect(validateEnv({})).toMatchObject({
      API_KEYS_PER_USER: 10,
      ACCESS_STATE_CACHE_TTL_MS: 30000,
      REFRESH_TOKEN_TTL_SECONDS: 2_592_000,
      UNVERIFIED_ACCOUNT_TTL_HOURS: 72,
    });
    expect(() => validateEnv({ REFRESH_TOKEN_TTL_SECONDS: '59' })).toThrow(
      /REFRESH_TOKEN_TTL_SECONDS/,
    );
    // docs/identity.md gives account changes 60 s to reach every instance.
    expect(() => validateEnv({ ACCESS_STATE_CACHE_TTL_MS: '60001' })).toThrow(
      /ACCESS_STATE_CACHE_TTL_MS/,
    );
    expect(() => validateEnv({ API_KEYS_PER_USER: '0' })).toThrow(/API_KEYS_PER_USER/);
    expect(() => validateEnv({ API_KEYS_PER_USER: '101' })).toThrow(/API_KEYS_PER_USER/);
    expect(() => validateEnv({ UNVERIFIED_ACCOUNT_TTL_HOURS: '0' })).toThrow(
      /UNVERIFIED_ACCOUNT_TTL_HOURS/,
    );
    expect(() => validateEnv({ UNVERIFIED_ACCOUNT_TTL_HOURS: '8761' })).toThrow(
      /UNVERIFIED_ACCOUNT_TTL_HOURS/,
    );
  });

  it('should refuse private webhook addresses by default, and bound the delivery timings', () => {
    expect(validateEnv({})).toMatchObject({
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: false,
      WEBHOOKS_RETRY_BASE_MS: 10_000,
    });
    expect(() => validateEnv({ WEBHOOKS_RETRY_BASE_MS: '9' })).toThrow(/WEBHOOKS_RETRY_BASE_MS/);
  });

  it('should let an account own 10 webhook subscriptions by default, 1 to 100', () => {
    expect(validateEnv({})).toMatchObject({ WEBHOOKS_PER_USER: 10 });
    expect(validateEnv({ WEBHOOKS_PER_USER: '100' })).toMatchObject({ WEBHOOKS_PER_USER: 100 });
    expect(() => validateEnv({ WEBHOOKS_PER_USER: '0' })).toThrow(/WEBHOOKS_PER_USER/);
    expect(() => validateEnv({ WEBHOOKS_PER_USER: '101' })).toThrow(/WEBHOOKS_PER_USER/);
  });

  it('should lease a job for a minute by default, and bound the lease', () => {
    expect(validateEnv({})).toMatchObject({ OUTBOX_LEASE_MS: 60_000 });
    expect(() => validateEnv({ OUTBOX_LEASE_MS: '299' })).toThrow(/OUTBOX_LEASE_MS/);
    expect(() => validateEnv({ OUTBOX_LEASE_MS: '600001' })).toThrow(/OUTBOX_LEASE_MS/);
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

  it('should refuse production on the embedded database unless it is allowed', () => {
    expect(() =>
      validateEnv({
        NODE_ENV: 'production',
        JWT_SECRET: STRONG_SECRET,
        MFA_ENCRYPTION_KEY: MFA_KEY,
      }),
    ).toThrow(/DATABASE_URL: is required when NODE_ENV=production.*ALLOW_EMBEDDED_DATABASE=true/);
    expect(
      validateEnv({
        NODE_ENV: 'production',
        JWT_SECRET: STRONG_SECRET,
        MFA_ENCRYPTION_KEY: MFA_KEY,
        ALLOW_EMBEDDED_DATABASE: 'true',
      }),
    ).toMatchObject({ DATABASE_URL: undefined, ALLOW_EMBEDDED_DATABASE: true });
    expect(
      validateEnv({
        NODE_ENV: 'production',
        JWT_SECRET: STRONG_SECRET,
        MFA_ENCRYPTION_KEY: MFA_KEY,
        DATABASE_URL: 'postgres://db.internal/petstore',
      }),
    ).toMatchObject({ DATABASE_URL: 'postgres://db.internal/petstore' });
  });

  it.each([
    ['one repeated character', 'x'.repeat(64)],
    ['a repeated pattern', 'change-me-'.repeat(6)],
    ['a repeated word', 'password'.repeat(8)],
    ['a counting sequence', '0123456789'.repeat(4)],
  ])('should refuse a JWT_SECRET of %s', (_, secret) => {
    expect(() => validateEnv({ JWT_SECRET: secret })).toThrow(/JWT_SECRET: is too predictable/);
  });

  it.each([
    ['32 hex characters', randomBytes(16).toString('hex')],
    ['64 hex characters', randomBytes(32).toString('hex')],
    ['base64url', randomBytes(32).toString('base64url')],
  ])('should accept a random JWT_SECRET of %s', (_, secret) => {
    expect(validateEnv({ JWT_SECRET: secret }).JWT_SECRET).toBe(secret);
  });

  it('should refuse open registration in production without SMTP_URL, naming both ways out', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: STRONG_SECRET,
      MFA_ENCRYPTION_KEY: MFA_KEY,
      ALLOW_EMBEDDED_DATABASE: 'true',
    };
    expect(() => validateEnv({ ...production, REGISTRATION: 'open' })).toThrow(
      /SMTP_URL: is required when NODE_ENV=production and REGISTRATION=open.*REGISTRATION=closed/,
    );
    expect(validateEnv(production).SMTP_URL).toBeUndefined();
    expect(
      validateEnv({ ...production, REGISTRATION: 'open', SMTP_URL: 'smtps://u:p@mail.internal' }),
    ).toMatchObject({ REGISTRATION: 'open', SMTP_URL: 'smtps://u:p@mail.internal' });
  });

  it('should take single sign-on over https only (http on loopback), with its client', () => {
    const client = { OIDC_CLIENT_ID: 'petstore', OIDC_CLIENT_SECRET: 'a client secret' };
    expect(oidcConfig(validateEnv({})).issuer).toBeUndefined();
    expect(() => validateEnv({ ...client, OIDC_ISSUER: 'http://id.example.com' })).toThrow(
      /OIDC_ISSUER: must be an https:\/\/ URL/,
    );
    expect(() => validateEnv({ OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      /OIDC_CLIENT_ID: is required with OIDC_ISSUER[\s\S]*OIDC_CLIENT_SECRET: is required/,
    );
    expect(validateEnv({ ...client, OIDC_ISSUER: 'http://127.0.0.1:8080' }).OIDC_ISSUER).toBe(
      'http://127.0.0.1:8080',
    );
    const env = validateEnv({
      ...client,
      OIDC_ISSUER: 'https://id.example.com/tenant',
      OIDC_ALLOWED_DOMAINS: 'Example.com, staff.example.org',
    });
    expect(oidcConfig(env)).toEqual({
      issuer: 'https://id.example.com/tenant',
      clientId: 'petstore',
      clientSecret: 'a client secret',
      displayName: 'single sign-on',
      allowedDomains: ['example.com', 'staff.example.org'],
    });
    expect(() => validateEnv({ OIDC_ALLOWED_DOMAINS: 'example.com;other' })).toThrow(
      /OIDC_ALLOWED_DOMAINS: must be domains separated by commas/,
    );
  });

  it('should accept MAIL_FROM as an address or as Name <address>', () => {
    expect(validateEnv({ MAIL_FROM: 'shop@example.com' }).MAIL_FROM).toBe('shop@example.com');
    expect(validateEnv({ MAIL_FROM: 'The Shop <shop@example.com>' }).MAIL_FROM).toBe(
      'The Shop <shop@example.com>',
    );
  });

  it('should check the tracing variables, an empty endpoint being none', () => {
    expect(() =>
      validateEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }),
    ).not.toThrow();
    expect(() => validateEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => validateEnv({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => validateEnv({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });

  it('should take the shutdown drain in whole milliseconds', () => {
    expect(validateEnv({ SHUTDOWN_DRAIN_MS: '5000' }).SHUTDOWN_DRAIN_MS).toBe(5000);
  });

  it('should leave HTTP_MAX_CONNECTIONS unlimited unless set', () => {
    expect(validateEnv({}).HTTP_MAX_CONNECTIONS).toBeUndefined();
    expect(validateEnv({ HTTP_MAX_CONNECTIONS: '500' }).HTTP_MAX_CONNECTIONS).toBe(500);
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
    ['SEARCH_STATEMENT_TIMEOUT_MS', '0'],
    ['DATABASE_CONNECT_TIMEOUT_MS', 'soon'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'yaml'],
    ['METRICS_ENABLED', 'sometimes'],
    ['METRICS_TOKEN', 'short'],
    ['CORS_ORIGINS', 'shop.example.com'],
    ['CORS_ORIGINS', 'https://a.example.com,*'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['SHUTDOWN_DRAIN_MS', '-1'],
    ['SHUTDOWN_DRAIN_MS', '2.5'],
    ['SHUTDOWN_DRAIN_MS', '5s'],
    ['JWT_SECRET', 'short'],
    ['ALLOW_EMBEDDED_DATABASE', 'perhaps'],
    ['MIGRATION_LOCK_TIMEOUT_MS', '0'],
    ['HTTP_MAX_CONNECTIONS', '0'],
    ['S3_CONNECT_TIMEOUT_MS', '0'],
    ['S3_REQUEST_TIMEOUT_MS', 'forever'],
    ['MEDIA_MAX_BUFFERED_BYTES', String(5 * 1024 * 1024)],
    ['MEDIA_PROCESSING_TIMEOUT_SECONDS', '0.5'],
    ['REGISTRATION', 'invite-only'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'mail.example.com:25'],
    ['MAIL_FROM', 'not an address'],
    ['MAIL_FROM', 'Pet store <no-reply>'],
  ])('should refuse %s=%s with a message naming the variable', (name, value) => {
    expect(() => validateEnv({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment[\\s\\S]*${name}:`),
    );
  });
});

describe('configuration namespaces', () => {
  it('should build each namespace from the one validated environment', () => {
    const env = validateEnv({ DATABASE_POOL_MAX: '7', API_KEY_MODES: 'test, live' });
    expect(databaseConfig(env)).toMatchObject({ poolMax: 7, dataDir: './data' });
    expect(authConfig(env).apiKeyModes).toEqual(['test', 'live']);
  });

  it('should accept only live keys in production unless told otherwise', () => {
    const env = validateEnv({
      NODE_ENV: 'production',
      JWT_SECRET: STRONG_SECRET,
      MFA_ENCRYPTION_KEY: MFA_KEY,
      ALLOW_EMBEDDED_DATABASE: 'true',
    });
    expect(authConfig(env).apiKeyModes).toEqual(['live']);
    expect(authConfig(env).registration).toBe('closed');
    expect(mailConfig(env).logLinks).toBe(false);
  });

  it('should require a second factor of admins in production and of nobody elsewhere, unless told', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: STRONG_SECRET,
      MFA_ENCRYPTION_KEY: MFA_KEY,
      ALLOW_EMBEDDED_DATABASE: 'true',
    };
    expect(authConfig(validateEnv(production)).mfaRequiredRoles).toEqual(['admin']);
    expect(authConfig(validateEnv({})).mfaRequiredRoles).toEqual([]);
    expect(
      authConfig(validateEnv({ ...production, MFA_REQUIRED_ROLES: '' })).mfaRequiredRoles,
    ).toEqual([]);
    expect(
      authConfig(validateEnv({ MFA_REQUIRED_ROLES: 'admin, user,admin' })).mfaRequiredRoles,
    ).toEqual(['admin', 'user']);
    expect(() => validateEnv({ MFA_REQUIRED_ROLES: 'admin,root' })).toThrow(
      /MFA_REQUIRED_ROLES: must be a comma-separated list of admin, user and customer/,
    );
  });

  it('should require MFA_ENCRYPTION_KEY in production, as 32 bytes in base64', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: STRONG_SECRET,
      ALLOW_EMBEDDED_DATABASE: 'true',
    };
    expect(() => validateEnv(production)).toThrow(
      /MFA_ENCRYPTION_KEY: is required when NODE_ENV=production/,
    );
    expect(validateEnv({}).MFA_ENCRYPTION_KEY).toBeUndefined();
    for (const key of [
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      randomBytes(32).toString('base64url'),
    ]) {
      expect(() => validateEnv({ MFA_ENCRYPTION_KEY: key })).toThrow(
        /MFA_ENCRYPTION_KEY: must be 32 bytes in base64/,
      );
      expect(() => validateEnv({ MFA_ENCRYPTION_KEY_PREVIOUS: key })).toThrow(
        /MFA_ENCRYPTION_KEY_PREVIOUS: must be 32 bytes in base64/,
      );
    }
    const env = validateEnv({ ...production, MFA_ENCRYPTION_KEY: MFA_KEY });
    expect(authConfig(env)).toMatchObject({
      mfaEncryptionKey: MFA_KEY,
      mfaEncryptionKeyPrevious: undefined,
    });
  });

  it('should open registration in development and build mail links on PUBLIC_BASE_URL, else localhost', () => {
    const env = validateEnv({ PORT: '4000', DATA_DIR: '/var/petstore' });
    expect(authConfig(env).registration).toBe('open');
    expect(mailConfig(env)).toEqual({
      smtpUrl: undefined,
      from: 'Pet store <no-reply@petstore.invalid>',
      fileDir: '/var/petstore/mail',
      linkBaseUrl: 'http://localhost:4000',
      logLinks: true,
    });
    const behindProxy = validateEnv({ PUBLIC_BASE_URL: 'https://shop.example.com/' });
    expect(mailConfig(behindProxy).linkBaseUrl).toBe('https://shop.example.com');
  });
});
