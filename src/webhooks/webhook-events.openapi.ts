import { getSchemaPath } from '@nestjs/swagger';
import { AdoptionResponse } from '../adoptions/dto/adoption-response.dto.js';
import type { DocumentPart } from '../openapi/document-parts.js';
import { TIMESTAMP_SCHEMA } from '../openapi/schemas.js';
import { PetResponse } from '../pets/dto/pet-response.dto.js';
import { PetStatusChangedData } from './dto/pet-event-payload.dto.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event-types.js';

const SUMMARIES: Record<WebhookEventType, string> = {
  'pet.created': 'A pet was created; data is the new pet',
  'pet.updated': 'Fields of a pet other than its status changed; data is the pet after it',
  'pet.status_changed': 'A pet’s status moved; data is the pet after it, with from and to',
  'pet.deleted': 'A pet was deleted; data is the pet as it was',
  'pet.image_added': 'An image was uploaded for a pet; data is the pet with its new photo URL',
  'adoption.requested': 'An adoption was requested (its pet is now pending); data is the adoption',
  'adoption.approved': 'Staff approved an adoption (its hold starts again); data is the adoption',
  'adoption.completed': 'An adoption was completed (its pet is sold); data is the adoption',
  'adoption.rejected': 'Staff rejected an adoption (its pet is available); data is the adoption',
  'adoption.cancelled': 'An adoption was cancelled (its pet is available); data is the adoption',
  'adoption.expired': 'An adoption’s hold passed (its pet is available); data is the adoption',
  'adoption.returned': 'An adopted pet was returned (it is available); data is the adoption',
};

function dataOf(type: WebhookEventType) {
  if (type === 'pet.status_changed') return PetStatusChangedData;
  return type.startsWith('adoption.') ? AdoptionResponse : PetResponse;
}

/** Standard Webhooks' headers, the same on every delivery of one event but the timestamp. */
const HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event’s id: the same on every attempt, so receivers drop duplicates by it',
    schema: { type: 'string', maxLength: 64 },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was signed, in Unix seconds; refuse ones too far from now',
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the secret (the base64 ' +
      'after `whsec_`); within 24 h of a rotation, a second one made with the previous ' +
      'secret follows after a space. Any one that matches is enough.',
    schema: {
      type: 'string',
      maxLength: 95,
      pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$',
    },
  },
];

function operation(type: WebhookEventType) {
  const order = type.startsWith('adoption.') ? 'adoption' : 'pet';
  return {
    post: {
      operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
      summary: SUMMARIES[type],
      description:
        'Sent to every enabled subscription listing this type, for events after its creation, ' +
        `in order per ${order}, at least once (retried with backoff for 24 h until a 2xx).`,
      tags: ['webhooks'],
      parameters: HEADERS.map((header) => ({ ...header, in: 'header', required: true })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['type', 'timestamp', 'data'],
              additionalProperties: false,
              properties: {
                type: { type: 'string', enum: [type] },
                timestamp: { ...TIMESTAMP_SCHEMA, description: 'When the change was written' },
                data: { $ref: getSchemaPath(dataOf(type)) },
              },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Received. Anything else, or no answer within 10 s, is retried' },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 `webhooks` map (what the service POSTs to subscribers, by event type) and
 * the schema it refers to that no route does.
 */
export function webhookEventsPart(): DocumentPart {
  return {
    extraModels: [PetStatusChangedData],
    webhooks: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, operation(type)])),
  };
}
