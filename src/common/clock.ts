import { Injectable } from '@nestjs/common';

/**
 * The time of the application's own clock, where a rule depends on it and tests must move
 * it without waiting (TOTP time steps). Rows keep using the database's clock.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
