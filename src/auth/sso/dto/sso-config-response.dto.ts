import { ApiProperty } from '@nestjs/swagger';

export class SsoConfigResponse {
  @ApiProperty({ description: 'Whether single sign-on is configured', example: true })
  enabled!: boolean;

  @ApiProperty({
    description: 'The provider’s name, for “Sign in with …”; only when enabled',
    required: false,
    example: 'Example ID',
    maxLength: 60,
  })
  displayName?: string;
}
