import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

/**
 * An optional field that always has a value: it may be left out, but `null` is validated
 * like any other value, and so refused. (`@IsOptional()` lets null through: use it only for
 * fields that null clears.)
 */
export const IsOptionalNotNull = () =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Free text of at most `maxLength` characters that may be left out, and that null clears. */
export const OptionalText = (maxLength: number) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      maxLength,
      nullable: true,
      description: 'null: not set (on update, clears it)',
    }),
    IsOptional(),
    IsString(),
    MaxLength(maxLength),
  );
