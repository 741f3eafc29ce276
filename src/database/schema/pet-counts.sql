-- Exact pet totals in O(1): counter rows per (category, status), kept by triggers in the
-- same transaction as every insert, delete and move, so `total` never needs COUNT(*).
-- Each session adds to the shard of its server process (`pg_backend_pid() % 16`): two
-- sessions creating pets of one category and status wait on each other only when they share
-- a shard. A shard's count may go below zero (a pet counted in one shard and removed in
-- another); only the sum of a (category, status) is a count.

CREATE OR REPLACE FUNCTION pet_counts_add(category bigint, pet_status "public"."pet_status", delta int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "pet_counts" ("category_id", "status", "shard", "count")
  VALUES (category, pet_status, pg_backend_pid() % 16, delta)
  ON CONFLICT ("category_id", "status", "shard")
  DO UPDATE SET "count" = "pet_counts"."count" + delta;
END $$;

-- Two moves in opposite directions take the two counter rows in one order, or they would
-- deadlock: the lower (category, status) key is always touched first.
CREATE OR REPLACE FUNCTION pet_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
  ELSIF (OLD."category_id", OLD."status") < (NEW."category_id", NEW."status") THEN
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
  ELSE
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pets_count_insert_delete AFTER INSERT OR DELETE ON pets
FOR EACH ROW EXECUTE FUNCTION pet_counts_apply();

CREATE OR REPLACE TRIGGER pets_count_move AFTER UPDATE OF category_id, status ON pets
FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id
                   OR OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION pet_counts_apply();
