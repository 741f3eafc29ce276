import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A recurring job's schedule (docs/jobs.md, "Recurring jobs"): the instance that moves
 * `nextRunAt` on, in the statement that queues the run, runs that period; the others find it
 * moved on.
 */
@Entity({ name: 'job_schedules' })
export class JobSchedule {
  /** The `@RecurringJob` queue the runs go to. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_job_schedules' })
  queue: string;

  @Column({ name: 'every_ms', type: 'integer' })
  everyMs: number;

  @Column({ name: 'next_run_at', type: 'timestamptz', precision: 3 })
  nextRunAt: Date;
}
