-- The links of each (tag, category, status), in shards like pet_counts
-- (`pg_backend_pid() % 16`): the facets of the default views (no filter, only a category,
-- only a status) read their top tags from these counters instead of from every pet's links.
-- Kept in the transaction of every change: links written (after their statement, where a
-- new pet is visible) and removed while their pet remains; a pet's links before the pet is
-- deleted (its cascade then finds no pet to count them against); a pet's links moved with
-- its category or status. Rows are written in key order: two writers lock them in one order.

CREATE OR REPLACE FUNCTION tag_counts_add(links jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_counts AS c (tag_id, category_id, status, shard, count)
  SELECT l.tag_id, l.category_id, l.status, pg_backend_pid() % 16, sum(l.delta)
    FROM jsonb_to_recordset(links)
         AS l(tag_id bigint, category_id bigint, status pet_status, delta int)
   -- A tag deleted by hand takes its links and its counters with it.
   WHERE EXISTS (SELECT 1 FROM tags t WHERE t.id = l.tag_id)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (tag_id, category_id, status, shard)
  DO UPDATE SET count = c.count + EXCLUDED.count;
END $$;

CREATE OR REPLACE FUNCTION pet_tags_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tag_counts_add(COALESCE((
    SELECT jsonb_agg(jsonb_build_object('tag_id', c.tag_id, 'category_id', p.category_id,
                                        'status', p.status,
                                        'delta', CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END))
      FROM changed c JOIN pets p ON p.id = c.pet_id), '[]'));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pet_tags_count_insert AFTER INSERT ON pet_tags
REFERENCING NEW TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_tags_count_changed();

CREATE OR REPLACE TRIGGER pet_tags_count_delete AFTER DELETE ON pet_tags
REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_tags_count_changed();

CREATE OR REPLACE FUNCTION pets_tag_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM tag_counts_add(COALESCE((
      SELECT jsonb_agg(jsonb_build_object('tag_id', pt.tag_id, 'category_id', OLD.category_id,
                                          'status', OLD.status, 'delta', -1))
        FROM pet_tags pt WHERE pt.pet_id = OLD.id), '[]'));
    RETURN OLD;
  END IF;
  PERFORM tag_counts_add(COALESCE((
    SELECT jsonb_agg(m) FROM (
      SELECT jsonb_build_object('tag_id', pt.tag_id, 'category_id', OLD.category_id,
                                'status', OLD.status, 'delta', -1) AS m
        FROM pet_tags pt WHERE pt.pet_id = NEW.id
      UNION ALL
      SELECT jsonb_build_object('tag_id', pt.tag_id, 'category_id', NEW.category_id,
                                'status', NEW.status, 'delta', 1)
        FROM pet_tags pt WHERE pt.pet_id = NEW.id) x), '[]'));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pets_tag_counts_delete BEFORE DELETE ON pets
FOR EACH ROW EXECUTE FUNCTION pets_tag_counts_apply();

CREATE OR REPLACE TRIGGER pets_tag_counts_move AFTER UPDATE OF category_id, status ON pets
FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id
                   OR OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION pets_tag_counts_apply();
