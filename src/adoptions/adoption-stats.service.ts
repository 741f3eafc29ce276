import { Injectable } from '@nestjs/common';
import { AdoptionsRepository } from './adoptions.repository.js';

/** Adoptions requested, completed and expired on one UTC day, and how long completions took. */
export interface AdoptionActivity {
  date: string;
  adoptionsRequested: number;
  adoptionsCompleted: number;
  adoptionsExpired: number;
  /** The median hours from request to completion of the day's completions; none without. */
  adoptionMedianHoursToComplete?: number;
}

/** What the statistics read of adoptions (GET /stats/activity). */
@Injectable()
export class AdoptionStatsService {
  constructor(private readonly adoptions: AdoptionsRepository) {}

  /** Per UTC day since `since`, for the days that had any. */
  async countPerDay(since: Date): Promise<AdoptionActivity[]> {
    const days = await this.adoptions.countPerDay(since);
    return days.map(({ adoptionMedianHoursToComplete, ...counts }) => ({
      ...counts,
      adoptionMedianHoursToComplete: adoptionMedianHoursToComplete ?? undefined,
    }));
  }
}
