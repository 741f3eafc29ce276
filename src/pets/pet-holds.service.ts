import { Injectable } from '@nestjs/common';

/** A pet's open adoption as the pet shows it (contract section 9, "Adoptions"). */
export interface PetHold {
  id: number;
  status: string;
  holdExpiresAt: Date | null;
  /** Raised by each change of the adoption: the pet's ETag includes it. */
  version: number;
}

type HoldReader = (petId: number) => Promise<PetHold | undefined>;

/**
 * Where the adoptions module, a floor above, registers how to read a pet's open adoption, so
 * that `GET /pets/{id}` shows it without pets importing adoptions.
 */
@Injectable()
export class PetHoldsService {
  private reader: HoldReader = () => Promise.resolve(undefined);

  register(reader: HoldReader): void {
    this.reader = reader;
  }

  of(petId: number): Promise<PetHold | undefined> {
    return this.reader(petId);
  }
}
