import { ApiProperty } from '@nestjs/swagger';
import { ApiIdProperty, ApiTextProperty, ApiTimestampProperty } from '../../../openapi/schemas.js';
import { PASSKEYS_PER_ACCOUNT } from '../passkeys.service.js';
import { PASSKEY_NAME_MAX_LENGTH } from './passkey.dto.js';

export class PasskeyResponse {
  @ApiIdProperty('Passkey id')
  id: number;

  @ApiTextProperty(PASSKEY_NAME_MAX_LENGTH, 'Its name')
  name: string;

  @ApiTimestampProperty('When it was registered')
  createdAt: Date;

  @ApiTimestampProperty('Its last accepted use', { nullable: true })
  lastUsedAt: Date | null;

  @ApiProperty({
    type: 'boolean',
    description: 'Whether its authenticator said it is backed up (synced), at its last use',
  })
  backedUp: boolean;

  @ApiProperty({
    type: 'string',
    enum: ['singleDevice', 'multiDevice'],
    description: 'Whether it lives on one device or may be synced to others',
  })
  deviceType: string;

  @ApiProperty({
    type: 'array',
    maxItems: 16,
    items: { type: 'string', maxLength: 32 },
    description: 'How the browser may reach its authenticator (`internal`, `usb`, `hybrid`…)',
  })
  transports: string[];
}

export class PasskeyListResponse {
  @ApiProperty({
    type: [PasskeyResponse],
    maxItems: PASSKEYS_PER_ACCOUNT,
    description: 'The account’s passkeys, oldest first',
  })
  passkeys: PasskeyResponse[];
}

/** The options for the browser's WebAuthn call, passed on as they are. */
export class PasskeyOptionsResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'For `startRegistration({ optionsJSON })` / `startAuthentication({ optionsJSON })` of ' +
      '@simplewebauthn/browser (`PublicKeyCredentialCreationOptionsJSON` or ' +
      '`PublicKeyCredentialRequestOptionsJSON`); its challenge serves once, for 5 minutes',
  })
  options: object;
}
