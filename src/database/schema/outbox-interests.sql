-- The interest of gated outbox consumers (docs/events.md, "Interest"): per consumer and event
-- type, how many of its subscribers want events of that type. Publishing writes a gated
-- consumer's outbox row only where the count is above zero, a condition inside the outbox's
-- one INSERT, so a change with no subscriber costs no extra statement and leaves no row.
--
-- Kept by triggers on the subscribers' table, in the transaction of every change of it,
-- whatever statement makes it (an API call, the delivery worker disabling a failing
-- subscription, a cascade): a count moves by deltas under its row's lock, so concurrent
-- changes add up exactly. Statement-level, so a statement touching many subscriptions writes
-- each count once, the rows in key order: two writers lock them in one order.

-- `changes`: one element per subscriber changed, `{ "types": [...], "delta": 1 | -1 }`,
-- its types counted once each.
CREATE OR REPLACE FUNCTION outbox_interests_add(interested text, changes jsonb)
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
END $$;

-- The webhooks' fan-out (`WEBHOOK_FAN_OUT`): an enabled subscription wants its `events`; a
-- disabled one wants nothing until it is enabled again; a TRUNCATE leaves none. Every UPDATE
-- statement runs this (a statement-level trigger takes no column list with its transition
-- tables); one that changes neither `enabled` nor `events` nets to zero and writes nothing.
CREATE OR REPLACE FUNCTION webhook_subscriptions_interest() RETURNS trigger
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
END $$;

CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_insert AFTER INSERT
ON webhook_subscriptions REFERENCING NEW TABLE AS added
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest();

CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_update AFTER UPDATE
ON webhook_subscriptions REFERENCING OLD TABLE AS removed NEW TABLE AS added
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest();

CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_delete AFTER DELETE
ON webhook_subscriptions REFERENCING OLD TABLE AS removed
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest();

CREATE OR REPLACE TRIGGER webhook_subscriptions_interest_truncate AFTER TRUNCATE
ON webhook_subscriptions
FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_interest();
