-- Whether an adoption in `status` is open: it holds its pet, and a pet has at most one. The
-- one definition in SQL of what OPEN_ADOPTION_STATUSES says in TypeScript
-- (src/adoptions/adoption-status.ts). IMMUTABLE, as an index predicate must be: the unique
-- index UQ_adoptions_open_pet calls it, so a statement that means "open" calls it too, the
-- planner matching a partial index by its predicate's expression. Changing what it answers
-- means rebuilding that index in the same migration.

CREATE OR REPLACE FUNCTION adoption_is_open(status adoption_status) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN status IN ('requested', 'approved');

-- A pet with an open adoption moves only through it: its status is not written and it is
-- not deleted while the adoption is open. A move closes the adoption before it moves the
-- pet, and a request moves the pet before it inserts the adoption, so the moves pass and
-- every other path (a PUT, a DELETE, code not written yet) is refused. Answered 409
-- PET_HAS_OPEN_ADOPTION (common/errors/constraint-errors.ts, by the name).

CREATE OR REPLACE FUNCTION pets_refuse_open_adoption() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM adoptions a WHERE a.pet_id = OLD.id AND adoption_is_open(a.status)) THEN
    RAISE EXCEPTION 'Pet % has an open adoption', OLD.id
      USING ERRCODE = 'restrict_violation', CONSTRAINT = 'pets_open_adoption';
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;

CREATE OR REPLACE TRIGGER pets_open_adoption_move BEFORE UPDATE OF status ON pets
  FOR EACH ROW EXECUTE FUNCTION pets_refuse_open_adoption();

CREATE OR REPLACE TRIGGER pets_open_adoption_delete BEFORE DELETE ON pets
  FOR EACH ROW EXECUTE FUNCTION pets_refuse_open_adoption();

-- The start of a request, in one round trip: the adopter's advisory lock (first key 43, the
-- adoptions' class), held until the transaction ends so that two requests of one adopter
-- cannot both pass the per-adopter limit; then its open adoptions counted, and the id of the
-- adoption about to be inserted. plpgsql and VOLATILE because, under READ COMMITTED, each
-- statement of such a function takes a fresh snapshot: the count, taken after the lock is
-- granted, sees a request committed while this one waited. A plain statement's snapshot is
-- taken before the lock inside it, and would miss it.

CREATE OR REPLACE FUNCTION adoption_request_start(adopter bigint, OUT open_count int, OUT adoption_id bigint)
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(43, (adopter % 2147483647)::int);
  SELECT count(*)::int INTO open_count
    FROM adoptions a WHERE a.adopter_id = adopter AND adoption_is_open(a.status);
  adoption_id := nextval(pg_get_serial_sequence('adoptions', 'id'));
END $$;
