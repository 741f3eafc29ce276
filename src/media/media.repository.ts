import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PetImage } from './pet-image.entity.js';

/** What an upload records; the id and the creation time come from the database. */
type NewPetImage = Omit<PetImage, 'id' | 'pet' | 'createdAt'>;

/**
 * The media module's only door to the database: the `pet_images` rows. Methods that take a
 * `manager` run inside the caller's transaction (see `transaction`).
 */
@Injectable()
export class MediaRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  insert(image: NewPetImage, manager: EntityManager): Promise<PetImage> {
    return manager.getRepository(PetImage).save(image);
  }

  /** Oldest first. */
  findByPet(petId: number): Promise<PetImage[]> {
    return this.dataSource.getRepository(PetImage).find({ where: { petId }, order: { id: 'ASC' } });
  }

  /** Both storage keys of every image of the pet. */
  async keysOfPet(petId: number, manager: EntityManager): Promise<string[]> {
    const images = await manager
      .getRepository(PetImage)
      .find({ where: { petId }, select: { key: true, thumbnailKey: true } });
    return images.flatMap((image) => [image.key, image.thumbnailKey]);
  }

  /** Deletes the pet's images whose main key is not in `kept`; their storage keys. */
  async deleteAllBut(petId: number, kept: string[], manager: EntityManager): Promise<string[]> {
    const [dropped] = await manager.query<[{ key: string; thumbnail_key: string }[], number]>(
      `DELETE FROM pet_images WHERE pet_id = $1 AND NOT (key = ANY($2::text[]))
       RETURNING key, thumbnail_key`,
      [petId, kept],
    );
    return dropped.flatMap((image) => [image.key, image.thumbnail_key]);
  }

  /** Which of `keys` an image row names, as main image or thumbnail. */
  async referencedKeys(keys: string[]): Promise<Set<string>> {
    const rows = await this.dataSource.query<{ key: string }[]>(
      `SELECT key FROM pet_images WHERE key = ANY($1::text[])
       UNION SELECT thumbnail_key FROM pet_images WHERE thumbnail_key = ANY($1::text[])`,
      [keys],
    );
    return new Set(rows.map((row) => row.key));
  }
}
