import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { LargePageQueryDto } from '../../../common/dto/pagination-query.dto.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../webhook-delivery.entity.js';

export class ListDeliveriesQueryDto extends LargePageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
