import { Injectable } from '@nestjs/common';
import { AdoptionStatsService } from '../adoptions/adoption-stats.service.js';
import { AuditEventsService } from '../audit/audit-events.service.js';
import { PetHistoryService } from '../pets/pet-history.service.js';
import { WebhookDeliveriesService } from '../webhooks/delivery/webhook-deliveries.service.js';
import type { ActivityDayResponse } from './dto/activity.dto.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Activity per UTC day, counted from the database by the modules that own the records (the
 * pets' history, the audit log, the delivery log, the adoptions): the same answer on every instance.
 */
@Injectable()
export class StatsService {
  constructor(
    private readonly petHistory: PetHistoryService,
    private readonly audit: AuditEventsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly adoptions: AdoptionStatsService,
  ) {}

  /** The last `days` UTC days, today included, oldest first. */
  async activity(days: number, now = new Date()): Promise<ActivityDayResponse[]> {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const since = new Date(today - (days - 1) * DAY_MS);
    const [pets, logins, deliveries, adoptions] = await Promise.all([
      this.petHistory.countPerDay(since),
      this.audit.loginsPerDay(since),
      this.deliveries.countEndedPerDay(since),
      this.adoptions.countPerDay(since),
    ]);
    const byDate = new Map<string, ActivityDayResponse>();
    for (let i = 0; i < days; i += 1) {
      const date = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      byDate.set(date, {
        date,
        petsCreated: 0,
        petsSold: 0,
        logins: 0,
        failedLogins: 0,
        deliveriesSucceeded: 0,
        deliveriesFailed: 0,
        adoptionsRequested: 0,
        adoptionsCompleted: 0,
        adoptionsExpired: 0,
      });
    }
    for (const { date, ...counts } of [...pets, ...logins, ...deliveries, ...adoptions]) {
      const day = byDate.get(date);
      if (day) Object.assign(day, counts);
    }
    return [...byDate.values()];
  }
}
