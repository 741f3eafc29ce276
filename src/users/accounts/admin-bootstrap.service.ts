import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import { UsersService } from '../users.service.js';

/** Creates the first admin at start-up when none exists (docs/identity.md, The first admin). */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');
  private generatedPassword?: string;

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
    if (created && this.cfg.adminPassword === undefined) {
      this.generatedPassword = password;
    } else if (created) {
      this.logger.log(`Created the first admin "${this.cfg.adminUsername}" (ADMIN_PASSWORD)`);
    } else if (this.cfg.adminPassword !== undefined && (await this.users.adminExists())) {
      // A changed ADMIN_PASSWORD would otherwise look accepted while the old password holds.
      this.logger.warn(
        'ADMIN_PASSWORD is ignored: it sets the password of the first admin only, and an admin ' +
          'exists already; change a password with PUT /v1/users/{id}',
      );
    }
  }

  /**
   * Prints the generated password, once. main.ts calls it as the last line of start-up,
   * where it cannot be lost among the framework's lines.
   */
  announceGeneratedPassword(): void {
    if (this.generatedPassword === undefined) return;
    // The only time this password is ever shown: it is not stored anywhere in clear.
    this.logger.warn(
      `==== First admin "${this.cfg.adminUsername}" created with the generated password ` +
        `${this.generatedPassword} - it is shown only this once; log in and change it ====`,
    );
    this.generatedPassword = undefined;
  }
}
