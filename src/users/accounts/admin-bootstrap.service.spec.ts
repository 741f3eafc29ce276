import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AuthConfig } from '../../config/auth.config.js';
import type { UsersService } from '../users.service.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';

function setUp(adminPassword: string | undefined, created: boolean, adminExists = !created) {
  const ensureAdmin = jest.fn((_u: string, _e: string, _p: string) => Promise.resolve(created));
  const users = {
    ensureAdmin,
    adminExists: () => Promise.resolve(adminExists),
  } as unknown as UsersService;
  const cfg = {
    adminUsername: 'root',
    adminEmail: 'root@petstore.invalid',
    adminPassword,
  } as AuthConfig;
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  return { sut: new AdminBootstrapService(users, cfg), ensureAdmin, warn, log };
}

describe(AdminBootstrapService.name, () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('should create the admin with ADMIN_PASSWORD and never log the password', async () => {
    const { sut, ensureAdmin, warn, log } = setUp('configured secret', true);
    await sut.onApplicationBootstrap();
    expect(ensureAdmin).toHaveBeenCalledWith('root', 'root@petstore.invalid', 'configured secret');
    expect(warn).not.toHaveBeenCalled();
    expect(JSON.stringify(log.mock.calls)).not.toContain('configured secret');
  });

  it('should generate a password and print it once in a warning, when announced', async () => {
    const { sut, ensureAdmin, warn } = setUp(undefined, true);
    await sut.onApplicationBootstrap();
    const password = ensureAdmin.mock.calls[0][2];
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(warn).not.toHaveBeenCalled();
    sut.announceGeneratedPassword();
    sut.announceGeneratedPassword();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain(password);
  });

  it('should print nothing when an admin already exists', async () => {
    const { sut, warn, log } = setUp(undefined, false);
    await sut.onApplicationBootstrap();
    sut.announceGeneratedPassword();
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  it('should warn that ADMIN_PASSWORD is ignored when an admin already exists', async () => {
    const { sut, warn } = setUp('a new password', false);
    await sut.onApplicationBootstrap();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/^ADMIN_PASSWORD is ignored/);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('a new password');
  });

  it('should not claim an admin exists when the username was taken by a user', async () => {
    const { sut, warn } = setUp('a new password', false, false);
    await sut.onApplicationBootstrap();
    expect(warn).not.toHaveBeenCalled();
  });
});
