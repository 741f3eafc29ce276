import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { validationExceptionFactory } from '../errors/validation-errors.js';

/**
 * ValidationPipe for bodies and query strings. Path parameters are left to their own pipes:
 * global pipes run first, and with `transform` ValidationPipe would turn the text of a
 * `petId: number` into a Number (`01` to 1, a 19-digit id rounded) before ParseIdPipe reads it.
 */
export class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return metadata.type === 'param' ? Promise.resolve(value) : super.transform(value, metadata);
  }
}

/** The app's global validation, as AppModule registers it (and the guards benchmark runs it). */
export function bodyAndQueryValidationPipe(): BodyAndQueryValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // Every constraint runs: the factory picks the one message per field that comes first.
    exceptionFactory: validationExceptionFactory,
  });
}
