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
