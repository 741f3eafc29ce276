import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import { PetImage } from './pet-image.entity.js';

/** What an upload records; the id and the creation time come from the database. */
type NewPetImage = Omit<PetImage, 'id' | 'pet' | 'createdAt'>;

/**
 * The media module's only door to the database: the `pet_images` rows. Every method joins
 * the transaction in progress, if any (see database/transactions.ts).
 */
@Injectable()
export class MediaRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  insert(image: NewPetImage): Promise<PetImage> {
    return this.txHost.tx.getRepository(PetImage).save(image);
  }

  /** Oldest first. */
  findByPet(petId: number): Promise<PetImage[]> {
    return this.txHost.tx.getRepository(PetImage).find({ where: { petId }, order: { id: 'ASC' } });
  }

  /** Deletes the pet's images whose main key is not in `kept`; their storage keys. */
  async deleteAllBut(petId: number, kept: string[]): Promise<string[]> {
    const [dropped] = await this.txHost.tx.query<
      [{ key: string; thumbnail_key: string }[], number]
    >(
      `DELETE FROM pet_images WHERE pet_id = $1 AND NOT (key = ANY($2::text[]))
       RETURNING key, thumbnail_key`,
      [petId, kept],
    );
    return dropped.flatMap((image) => [image.key, image.thumbnail_key]);
  }

  /** Which of `keys` an image row names, as main image or thumbnail. */
  async referencedKeys(keys: string[]): Promise<Set<string>> {
    const rows = await this.txHost.tx.query<{ key: string }[]>(
      `SELECT key FROM pet_images WHERE key = ANY($1::text[])
       UNION SELECT thumbnail_key FROM pet_images WHERE thumbnail_key = ANY($1::text[])`,
      [keys],
    );
    return new Set(rows.map((row) => row.key));
  }
}
