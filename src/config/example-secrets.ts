import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Values this repository publishes as examples of secrets (deploy/kubernetes/secret.yaml,
 * .env.example, docker/): anyone can read them, so production refuses them in every secret
 * setting, and in the password of a URL that carries one. The deploy placeholders are marked
 * `EXAMPLE-ONLY` (a base64 key in its bytes); the others (and README.md's admin password) are listed. `src/config/example-secrets.spec.ts` reads the
 * shipped files and checks that each placeholder there is refused.
 */
const EXAMPLE_MARK = 'example-only';
const LISTED_EXAMPLES = new Set(['password', 'minioadmin', 'a long admin password']);

export function isExampleSecret(value: string): boolean {
  return [value, passwordOf(value), base64TextOf(value)].some(
    (candidate) =>
      candidate !== undefined &&
      (candidate.toLowerCase().includes(EXAMPLE_MARK) ||
        LISTED_EXAMPLES.has(candidate.toLowerCase())),
  );
}

// A key given in base64 (MFA_ENCRYPTION_KEY) carries the mark in its bytes.
function base64TextOf(value: string): string | undefined {
  return /^[A-Za-z0-9+/]+=*$/.test(value)
    ? Buffer.from(value, 'base64').toString('latin1')
    : undefined;
}

function passwordOf(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const { password } = new URL(value);
  return password === '' ? undefined : decodeURIComponent(password);
}

/** A secret setting: with NODE_ENV=production, no published example value. */
export function NotAnExampleSecret(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notAnExampleSecret',
      validator: {
        validate: (value: unknown, args) =>
          (args?.object as { NODE_ENV?: string }).NODE_ENV !== 'production' ||
          typeof value !== 'string' ||
          !isExampleSecret(value),
        defaultMessage: () =>
          'is an example value published with the service, not a secret: generate one (`openssl rand -base64 32`)',
      },
    },
    options,
  );
}
