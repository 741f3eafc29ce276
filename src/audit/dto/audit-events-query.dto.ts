import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, ValidateBy, type ValidationArguments } from 'class-validator';
import { CursorQuery } from '../../common/dto/page-cursor.js';
import { IntegerText } from '../../common/dto/transforms.js';
import { ID_SCHEMA, TIMESTAMP_SCHEMA } from '../../openapi/schemas.js';
import {
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditTargetType,
} from '../audit-actions.js';

// ISO 8601 date and time with a zone: `2026-11-21T22:27:03.123Z`, `...+01:00`.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

const isTimestamp = (value: unknown) =>
  typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));

/** An ISO 8601 timestamp with its zone; `after` names a field it must come after. */
const TimestampQuery = (description: string, after?: string) =>
  applyDecorators(
    ApiPropertyOptional({ ...TIMESTAMP_SCHEMA, description }),
    IsOptional(),
    IsString(),
    ValidateBy({
      name: 'isTimestamp',
      validator: {
        validate: isTimestamp,
        defaultMessage: ({ property }: ValidationArguments) =>
          `${property} must be an ISO 8601 timestamp with a time zone (2026-11-21T22:27:03.123Z)`,
      },
    }),
    ...(after === undefined
      ? []
      : [
          ValidateBy({
            name: 'isAfter',
            validator: {
              validate: (value: unknown, { object }: ValidationArguments) => {
                const earlier = (object as Record<string, unknown>)[after];
                return (
                  !isTimestamp(earlier) ||
                  Date.parse(value as string) > Date.parse(earlier as string)
                );
              },
              defaultMessage: ({ property }: ValidationArguments) =>
                `${property} must be later than ${after}`,
            },
          }),
        ]),
  );

/** An id filter: a positive integer up to int64's largest. */
const IdQuery = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ ...ID_SCHEMA, description }),
    IsOptional(),
    IntegerText(1, Number.MAX_SAFE_INTEGER),
  );

/** The export's range: `since` inclusive, `until` exclusive; each optional. */
export class AuditRangeQueryDto {
  @TimestampQuery('Only entries made at or after this time')
  since?: string;

  @TimestampQuery('Only entries made before this time; later than `since`', 'since')
  until?: string;
}

export class ListAuditEventsQueryDto extends AuditRangeQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 100,
    default: 50,
    description: 'Page size; out of range is 400, never clamped',
  })
  @IntegerText(1, 100)
  limit: number = 50;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS, description: 'Only entries of this action' })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: AuditAction;

  @IdQuery('Only entries made by this user')
  actorId?: number;

  @ApiPropertyOptional({
    enum: AUDIT_TARGET_TYPES,
    description: 'Only entries about this kind of thing',
  })
  @IsOptional()
  @IsIn(AUDIT_TARGET_TYPES)
  targetType?: AuditTargetType;

  @IdQuery('Only entries about the thing of this id (with `targetType`, or of any type)')
  targetId?: number;

  @CursorQuery('pagination.nextCursor of the previous page, with the same filters')
  cursor?: string;
}
