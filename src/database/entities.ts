import { ApiKey } from '../auth/api-key.entity.js';
import { Category } from '../categories/category.entity.js';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity.js';
import { PetImage } from '../media/pet-image.entity.js';
import { PetEventRecord } from '../pets/pet-event.entity.js';
import { Pet } from '../pets/pet.entity.js';
import { Tag } from '../pets/tag.entity.js';
import { User } from '../users/user.entity.js';
import { WebhookDeliveryAttempt } from '../webhooks/webhook-delivery-attempt.entity.js';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity.js';
import { WebhookSubscription } from '../webhooks/webhook-subscription.entity.js';

/** Every entity, for the app's data source and the TypeORM CLI alike. */
export const entities = [
  Category,
  Pet,
  Tag,
  User,
  ApiKey,
  PetImage,
  IdempotencyKey,
  WebhookSubscription,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  PetEventRecord,
];
