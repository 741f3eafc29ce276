import { describe, expect, it } from '@jest/globals';
import { parseCreateAdmin, UsageError, type PasswordSources } from './create-admin.command.js';

const noStdin = (): Promise<string> => Promise.reject(new Error('standard input was read'));
const fromEnv = (password?: string): PasswordSources => ({
  env: { ADMIN_PASSWORD: password },
  readStdin: noStdin,
});
const fromStdin = (text: string): PasswordSources => ({
  env: { ADMIN_PASSWORD: 'not this one' },
  readStdin: () => Promise.resolve(text),
});

describe(parseCreateAdmin.name, () => {
  it('should build an admin with the password from ADMIN_PASSWORD', async () => {
    const dto = await parseCreateAdmin(
      ['--username', 'root.admin', '--email', 'root@example.com'],
      fromEnv('correct horse'),
    );
    expect({ ...dto }).toEqual({
      username: 'root.admin',
      password: 'correct horse',
      email: 'root@example.com',
      role: 'admin',
    });
  });

  it('should read the password from standard input without its final newline', async () => {
    const dto = await parseCreateAdmin(
      ['--username', 'ops', '--password-stdin'],
      fromStdin('correct horse \n'),
    );
    expect(dto.password).toBe('correct horse ');
  });

  it('should default the email from the username', async () => {
    const dto = await parseCreateAdmin(['--username', 'Ops'], fromEnv('correct horse'));
    expect(dto.email).toBe('ops@petstore.invalid');
  });

  it('should refuse a password given on the command line, saying why', async () => {
    const attempt = parseCreateAdmin(
      ['--username', 'ops', '--password', 'correct horse'],
      fromEnv('correct horse'),
    );
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(
      /password on the command line is refused .*--password-stdin.*ADMIN_PASSWORD/,
    );
  });

  it.each([
    [['--username', 'ops'], fromEnv(undefined), 'a password is required'],
    [['--password-stdin'], fromStdin('correct horse'), '--username is required'],
    [['--username', 'ops', '--password-stdin'], fromStdin('short\n'), 'password'],
    [['--username', 'a b'], fromEnv('correct horse'), 'username'],
    [['--username', 'ops', '--role', 'user'], fromEnv('correct horse'), "Unknown option '--role'"],
  ])('should refuse %j', async (args, sources, message) => {
    const attempt = parseCreateAdmin(args, sources);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(message);
  });
});
