import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { parseArgs } from 'node:util';
import { messageOf } from '../common/errors/message-of.js';
import { toFieldErrors } from '../common/errors/validation-errors.js';
import { CreateUserDto } from '../users/dto/create-user.dto.js';

export const CREATE_ADMIN_USAGE = [
  'Usage: npm run cli -- create-admin --username NAME --password-stdin [--email EMAIL]',
  '   or: ADMIN_PASSWORD=... npm run cli -- create-admin --username NAME [--email EMAIL]',
].join('\n');

/** A mistake in the command line: reported with the usage, exit code 2. */
export class UsageError extends Error {}

/** Where the password may come from: never the command line, which `ps` and shell history show. */
export interface PasswordSources {
  env: Record<string, string | undefined>;
  readStdin: () => Promise<string>;
}

/** Parses and validates create-admin's options with the same rules as POST /v1/users. */
export async function parseCreateAdmin(
  args: string[],
  sources: PasswordSources,
): Promise<CreateUserDto> {
  let values: {
    username?: string;
    password?: string;
    'password-stdin'?: boolean;
    email?: string;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        username: { type: 'string' },
        // Declared only to refuse it with a message that says why.
        password: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        email: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(messageOf(error));
  }
  if (values.password !== undefined) {
    throw new UsageError(
      'a password on the command line is refused (other users see it in the process list, and it stays in shell history): pipe it with --password-stdin, or set ADMIN_PASSWORD',
    );
  }
  if (values.username === undefined) throw new UsageError('--username is required');
  const password = values['password-stdin']
    ? withoutFinalNewline(await sources.readStdin())
    : sources.env.ADMIN_PASSWORD;
  if (password === undefined) {
    throw new UsageError(
      'a password is required: pipe it with --password-stdin, or set ADMIN_PASSWORD',
    );
  }
  const dto = plainToInstance(CreateUserDto, {
    username: values.username,
    password,
    email: values.email ?? `${values.username.toLowerCase()}@petstore.invalid`,
    role: 'admin',
  });
  const errors = toFieldErrors(await validate(dto, { forbidUnknownValues: true }));
  if (errors.length > 0) {
    throw new UsageError(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  }
  return dto;
}

/** `echo` and most secret files end with a newline that is not part of the password. */
function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** Standard input read to its end, as UTF-8. */
export async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
