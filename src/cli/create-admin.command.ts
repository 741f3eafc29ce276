import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { parseArgs } from 'node:util';
import { toFieldErrors } from '../common/errors/validation-errors.js';
import { CreateUserDto } from '../users/dto/create-user.dto.js';

export const CREATE_ADMIN_USAGE =
  'Usage: npm run cli -- create-admin --username NAME --password PASS [--email EMAIL]';

/** A mistake in the command line: reported with the usage, exit code 2. */
export class UsageError extends Error {}

/** Parses and validates create-admin's options with the same rules as POST /v1/users. */
export async function parseCreateAdmin(args: string[]): Promise<CreateUserDto> {
  let values: { username?: string; password?: string; email?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        username: { type: 'string' },
        password: { type: 'string' },
        email: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.username === undefined || values.password === undefined) {
    throw new UsageError('--username and --password are required');
  }
  const dto = plainToInstance(CreateUserDto, {
    username: values.username,
    password: values.password,
    email: values.email ?? `${values.username.toLowerCase()}@petstore.invalid`,
    role: 'admin',
  });
  const errors = toFieldErrors(await validate(dto, { forbidUnknownValues: true }));
  if (errors.length > 0) {
    throw new UsageError(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  }
  return dto;
}
