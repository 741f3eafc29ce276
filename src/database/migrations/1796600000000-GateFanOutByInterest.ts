import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhooks' fan-out gets an outbox row only for the event types an enabled subscription
 * wants (docs/events.md, "Interest"): `outbox_interests` counts, per gated consumer and event
 * type, the subscribers that want it, kept by triggers on `webhook_subscriptions` in the
 * transaction of every change of them; the outbox's insert reads it. The functions and
 * triggers as src/database/schema/outbox-interests.sql states them; the counts of the
 * subscriptions already there are written once the triggers hold the table.
 */
const CODE = [
  `CREATE OR REPLACE FUNCTION outbox_interests_add(interested text, changes jsonb)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_interests AS i (consumer, event_type, subscribers)
  SELECT interested, t.event_type, sum(s.delta)
    FROM jsonb_to_recordset(changes) AS s(types jsonb, delta int)
         CROSS JOIN LATERAL (SELECT DISTINCT jsonb_array_elements_text(s.types) AS event_type) t
   GROUP BY t.event_type
  HAVING sum(s.delta) <> 0
   ORDER BY t.event_type
  ON CONFLICT (consumer, event_type)
  DO UPDATE SET subscribers = i.subscribers + EXCLUDED.subscribers;
END $$`,
  `CREATE OR REPLACE FUNCTION webhook_subscriptions_interest() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed jsonb := '[]';
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM outbox_interests WHERE consumer = 'webhook-fan-out';
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    changed := changed || COALESCE((
      SELECT jsonb_agg(jsonb_build_object('types', to_jsonb(s.events), 'delta', -1))
        FROM removed s WHERE s.enabled), '[]');
  END IF;
  IF TG_OP <> 'DELETE' THEN
    changed := changed || COALESCE((
      SELECT jsonb_agg(jsonb_build_object('types', to_jsonb(s.events), 'delta', 1))
        FROM added s WHERE s.enabled), '[]');
  END IF;
  PERFORM outbox_interests_add('webhook-fan-out', changed);
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_insert AFTER INSERT
ON webhook_subscriptions REFERENCING NEW TABLE AS added
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest()`,
  `CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_update AFTER UPDATE
ON webhook_subscriptions REFERENCING OLD TABLE AS removed NEW TABLE AS added
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest()`,
  `CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_delete AFTER DELETE
ON webhook_subscriptions REFERENCING OLD TABLE AS removed
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest()`,
  `CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_truncate AFTER TRUNCATE
ON webhook_subscriptions
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest()`,
];

export class GateFanOutByInterest1796600000000 implements MigrationInterface {
  name = 'GateFanOutByInterest1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "outbox_interests" ("consumer" text NOT NULL, "event_type" text NOT NULL, "subscribers" integer NOT NULL, CONSTRAINT "PK_outbox_interests" PRIMARY KEY ("consumer", "event_type"))`,
    );
    for (const statement of CODE) await queryRunner.query(statement);
    // After the triggers: their creation locks out writers of the table until the commit, so
    // no change falls between the count and the triggers.
    await queryRunner.query(
      `INSERT INTO "outbox_interests" ("consumer", "event_type", "subscribers")
       SELECT 'webhook-fan-out', t."event_type", count(DISTINCT s."id")
         FROM "webhook_subscriptions" s CROSS JOIN unnest(s."events") AS t("event_type")
        WHERE s."enabled"
        GROUP BY t."event_type"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP TRIGGER "webhook_subscriptions_interest_truncate" ON "webhook_subscriptions"`,
    );
    await queryRunner.query(
      `DROP TRIGGER "webhook_subscriptions_interest_delete" ON "webhook_subscriptions"`,
    );
    await queryRunner.query(
      `DROP TRIGGER "webhook_subscriptions_interest_update" ON "webhook_subscriptions"`,
    );
    await queryRunner.query(
      `DROP TRIGGER "webhook_subscriptions_interest_insert" ON "webhook_subscriptions"`,
    );
    await queryRunner.query(`DROP FUNCTION "webhook_subscriptions_interest"()`);
    await queryRunner.query(`DROP FUNCTION "outbox_interests_add"(text, jsonb)`);
    await queryRunner.query(`DROP TABLE "outbox_interests"`);
  }
}
