import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';

export class FindCustomersQueryDto {
  @ApiProperty({
    type: 'string',
    minLength: 3,
    maxLength: 254,
    description:
      'The start of a customer’s username, or its whole email address (any case); trimmed. ' +
      'Three characters at least, as a username has',
  })
  @Trim()
  @IsString()
  @Length(3, 254)
  q: string;
}
