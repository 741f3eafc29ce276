import { describe, expect, it } from '@jest/globals';
import { parseCreateAdmin, UsageError } from './create-admin.command.js';

describe(parseCreateAdmin.name, () => {
  it('should build an admin from the options', async () => {
    const dto = await parseCreateAdmin([
      '--username',
      'root.admin',
      '--password',
      'correct horse',
      '--email',
      'root@example.com',
    ]);
    expect({ ...dto }).toEqual({
      username: 'root.admin',
      password: 'correct horse',
      email: 'root@example.com',
      role: 'admin',
    });
  });

  it('should default the email from the username', async () => {
    const dto = await parseCreateAdmin(['--username', 'Ops', '--password', 'correct horse']);
    expect(dto.email).toBe('ops@petstore.invalid');
  });

  it.each([
    [['--username', 'ops'], '--username and --password are required'],
    [['--username', 'ops', '--password', 'short'], 'password'],
    [['--username', 'a b', '--password', 'correct horse'], 'username'],
    [
      ['--username', 'ops', '--password', 'correct horse', '--role', 'user'],
      "Unknown option '--role'",
    ],
  ])('should refuse %j', async (args, message) => {
    const attempt = parseCreateAdmin(args);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(message);
  });
});
