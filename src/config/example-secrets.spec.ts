import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { getMetadataStorage } from 'class-validator';
import { loadAll } from 'js-yaml';
import { EnvironmentVariables, validateEnv } from './env.schema.js';
import { isExampleSecret } from './example-secrets.js';

/** The secret-bearing settings: those the image's entrypoint reads from files. */
const SECRET_SETTINGS =
  /^for name in ([A-Z0-9_ ]+); do$/m
    .exec(readFileSync('docker/entrypoint.sh', 'utf8'))?.[1]
    .split(' ') ?? [];

// A URL example in a comment names its setting by its scheme.
const URL_SETTINGS: Record<string, string> = {
  postgres: 'DATABASE_URL',
  postgresql: 'DATABASE_URL',
  redis: 'REDIS_URL',
  rediss: 'REDIS_URL',
  smtp: 'SMTP_URL',
  smtps: 'SMTP_URL',
};

type Placeholder = { file: string; name: string; value: string };

// A URL holds a secret only in its password: `redis://redis:6379` is no placeholder.
const holdsSecret = (value: string) =>
  !URL.canParse(value) || !value.includes('://') || new URL(value).password !== '';

// Settings that the schema accepts only together with another.
const COMPANIONS: Record<string, Record<string, string>> = {
  S3_SECRET_ACCESS_KEY: { S3_ACCESS_KEY_ID: 'petstore' },
  OIDC_CLIENT_SECRET: { OIDC_ISSUER: 'https://id.example.net', OIDC_CLIENT_ID: 'petstore' },
};
const withSetting = (name: string, value: string) => ({ ...COMPANIONS[name], [name]: value });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file));
}

/** Every value a YAML file of deploy/ or docker/ gives a secret setting, at any depth. */
function yamlPlaceholders(file: string): Placeholder[] {
  const found: Placeholder[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (SECRET_SETTINGS.includes(key) && typeof value === 'string') {
        found.push({ file, name: key, value });
      } else walk(value);
    }
  };
  loadAll(readFileSync(file, 'utf8')).forEach(walk);
  return found;
}

/** `.env.example`'s values of secret settings, commented out or not, and its example URLs. */
function envExamplePlaceholders(file: string): Placeholder[] {
  const found: Placeholder[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const setting = /^#?\s*([A-Z0-9_]+)=(\S+)/.exec(line);
    if (setting && SECRET_SETTINGS.includes(setting[1])) {
      found.push({ file, name: setting[1], value: setting[2] });
    }
    for (const [url, scheme] of line.matchAll(/\b([a-z]+):\/\/[^\s/@]*:[^\s/@]+@\S+/g)) {
      const name = URL_SETTINGS[scheme];
      if (name) found.push({ file, name, value: url });
    }
  }
  return found;
}

const placeholders: Placeholder[] = [
  ...[...filesUnder('deploy'), ...filesUnder('docker')]
    .filter((file) => /\.ya?ml$/.test(file))
    .flatMap(yamlPlaceholders),
  ...envExamplePlaceholders('.env.example'),
].filter((placeholder) => holdsSecret(placeholder.value));

const production = {
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(32).toString('base64'),
  MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  DATABASE_URL: `postgres://petstore:${randomBytes(16).toString('hex')}@db:5432/petstore`,
};

describe('example secrets', () => {
  it('should guard exactly the secret-bearing settings', () => {
    const guarded = getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .filter((metadata) => metadata.name === 'notAnExampleSecret')
      .map((metadata) => metadata.propertyName);
    expect(guarded.sort()).toEqual([...SECRET_SETTINGS].sort());
  });

  it('should find the placeholders the repository ships', () => {
    expect(placeholders).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'deploy/kubernetes/secret.yaml', name: 'METRICS_TOKEN' }),
        expect.objectContaining({ file: '.env.example', name: 'S3_SECRET_ACCESS_KEY' }),
        expect.objectContaining({ file: '.env.example', name: 'DATABASE_URL' }),
      ]),
    );
  });

  it.each(placeholders.map((p) => [p.file, p.name, p.value]))(
    'should refuse to start in production on %s’s %s (%s)',
    (_file, name, value) => {
      expect(() => validateEnv({ ...production, ...withSetting(name, value) })).toThrow(
        new RegExp(`${name}: is an example value published with the service`),
      );
    },
  );

  it('should accept those values outside production, and real secrets in production', () => {
    for (const { name, value } of placeholders.filter((p) => p.name !== 'JWT_SECRET')) {
      expect(() => validateEnv(withSetting(name, value))).not.toThrow();
    }
    const secret = randomBytes(24).toString('hex');
    expect(() =>
      validateEnv({
        ...production,
        METRICS_TOKEN: secret,
        REDIS_URL: `redis://:${secret}@redis:6379`,
        S3_ACCESS_KEY_ID: 'petstore',
        S3_SECRET_ACCESS_KEY: secret,
      }),
    ).not.toThrow();
  });

  it('should recognise an example inside a URL, however its password is encoded', () => {
    expect(isExampleSecret('redis://:EXAMPLE%2DONLY-x@redis:6379')).toBe(true);
    expect(isExampleSecret('postgres://user:password@127.0.0.1/db')).toBe(true);
    expect(isExampleSecret('postgres://user:s3cr3t-r4nd0m@127.0.0.1/db')).toBe(false);
  });
});
