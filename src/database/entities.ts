import { Category } from '../categories/category.entity.js';
import { PetImage } from '../media/pet-image.entity.js';
import { Pet } from '../pets/pet.entity.js';
import { Tag } from '../pets/tag.entity.js';

/** Every entity, for the app's data source and the TypeORM CLI alike. */
export const entities = [Category, Pet, PetImage, Tag];
