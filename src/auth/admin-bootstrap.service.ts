import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { UsersService } from '../users/users.service.js';

/** Creates the first admin at start-up when none exists (contract, section 3). */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly users: UsersService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const password = this.cfg.adminPassword ?? randomBytes(18).toString('base64url');
    const created = await this.users.ensureAdmin(
      this.cfg.adminUsername,
      this.cfg.adminEmail,
      password,
    );
    if (!created) return;
    if (this.cfg.adminPassword !== undefined) {
      this.logger.log(`Created the first admin "${this.cfg.adminUsername}" (ADMIN_PASSWORD)`);
    } else {
      // The only time this password is ever shown: it is not stored anywhere in clear.
      this.logger.warn(
        `Created the first admin "${this.cfg.adminUsername}" with the generated password ` +
          `${password} - it is shown only this once; log in and change it`,
      );
    }
  }
}
