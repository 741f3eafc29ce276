-- Search on GET /pets (docs/performance.md, "Search"). Every pet has a weighted text document
-- in pet_documents (name A; breed and tags B; category name and description C) beside the
-- facts its facets count (status, category_id, tag_ids), kept by the triggers below on pets,
-- pet_tags and categories. search_words holds the name and breed lexemes (with a letter:
-- numbers have no typos worth correcting) under a trigram index: a query word that no
-- document has is widened to the nearest of them (pet_search_query). pet_tags.pet_age, the
-- linked pet's age beside the tag's index, lets a tag with an age range count from that
-- index alone. PL/pgSQL throughout: its statements' plans are kept for the session, where an
-- SQL function's are made again on every call.

-- The documents of these pets, built in one statement, the category and the tags joined.
-- Rows in id order: two writers lock them in one order (no 40P01). A row equal to the stored
-- one is not written again (a pet and its tags are written by one statement, and both
-- tables' triggers may ask for it). Tags in id order, as tag_ids: the same pet always gets
-- the same document. One generic plan, kept for the session: with the ids as a parameter,
-- PostgreSQL made a custom plan on every call, for the same plan.
CREATE OR REPLACE FUNCTION pet_documents_refresh(ids bigint[]) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO pet_documents AS d (pet_id, document, status, category_id, tag_ids)
  SELECT p.id,
         setweight(to_tsvector('pet_search', p.name), 'A')
         || setweight(to_tsvector('pet_search', concat_ws(' ', p.breed, t.names)), 'B')
         || setweight(to_tsvector('pet_search', concat_ws(' ', c.name, p.description)), 'C'),
         p.status, p.category_id, COALESCE(t.tag_ids, '{}')
    FROM pets p
    JOIN categories c ON c.id = p.category_id
    LEFT JOIN LATERAL (
      SELECT string_agg(tag.name, ' ' ORDER BY tag.id) AS names,
             array_agg(tag.id ORDER BY tag.id) AS tag_ids
        FROM pet_tags pt JOIN tags tag ON tag.id = pt.tag_id
       WHERE pt.pet_id = p.id) t ON true
   WHERE p.id = ANY(ids) ORDER BY p.id
  ON CONFLICT (pet_id) DO UPDATE
     SET document = EXCLUDED.document, status = EXCLUDED.status,
         category_id = EXCLUDED.category_id, tag_ids = EXCLUDED.tag_ids
   WHERE (d.document, d.status, d.category_id, d.tag_ids)
         IS DISTINCT FROM (EXCLUDED.document, EXCLUDED.status, EXCLUDED.category_id, EXCLUDED.tag_ids);
END $$;

-- Words in byte order: two writers lock them in one order.
CREATE OR REPLACE FUNCTION search_words_add(texts text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
  SELECT DISTINCT w COLLATE "C" FROM unnest(texts) AS x(text),
         unnest(tsvector_to_array(to_tsvector('pet_search', x.text))) AS w
   WHERE w ~ '^[[:alnum:]]{3,}$' AND w ~ '[[:alpha:]]'
   ORDER BY 1
  ON CONFLICT (word) DO NOTHING;
END $$;

CREATE OR REPLACE FUNCTION pets_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
  PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pets_search_insert AFTER INSERT ON pets
REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION pets_search_inserted();

-- A status change refreshes the document's row; the words change only with a name or a breed.
CREATE OR REPLACE FUNCTION pets_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY[NEW.id]);
  IF OLD.name IS DISTINCT FROM NEW.name OR OLD.breed IS DISTINCT FROM NEW.breed THEN
    PERFORM search_words_add(ARRAY[concat_ws(' ', NEW.name, NEW.breed)]);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pets_search_update
AFTER UPDATE OF name, breed, description, category_id, status ON pets
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name
                   OR OLD.breed IS DISTINCT FROM NEW.breed
                   OR OLD.description IS DISTINCT FROM NEW.description
                   OR OLD.category_id IS DISTINCT FROM NEW.category_id
                   OR OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION pets_search_updated();

-- A link's pet_age is filled in after the links' statement, where a new pet is visible; the
-- API's own writes give the age with the link, so this writes only for another writer's
-- links. Links change the documents whose tag ids differ from them: a pet created with tags
-- in one statement has no document yet, or one with these tags, which its own insert
-- trigger writes. A deleted pet's links go with it; its document is gone by then (cascade).
CREATE OR REPLACE FUNCTION pet_tags_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE pet_tags pt SET pet_age = p.age
      FROM changed c JOIN pets p ON p.id = c.pet_id
     WHERE c.pet_age IS NULL AND p.age IS NOT NULL
       AND pt.pet_id = c.pet_id AND pt.tag_id = c.tag_id;
  END IF;
  PERFORM pet_documents_refresh(ARRAY(
    SELECT DISTINCT d.pet_id FROM changed c JOIN pet_documents d ON d.pet_id = c.pet_id
     WHERE d.tag_ids <> ARRAY(SELECT pt.tag_id FROM pet_tags pt
                               WHERE pt.pet_id = d.pet_id ORDER BY pt.tag_id)));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pet_tags_search_insert AFTER INSERT ON pet_tags
REFERENCING NEW TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_tags_search_changed();

CREATE OR REPLACE TRIGGER pet_tags_search_delete AFTER DELETE ON pet_tags
REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_tags_search_changed();

CREATE OR REPLACE FUNCTION categories_search_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY(SELECT id FROM pets WHERE category_id = NEW.id));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER categories_search_rename AFTER UPDATE OF name ON categories
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
EXECUTE FUNCTION categories_search_renamed();

-- An age change is copied to the pet's links, after the statement's own links are written:
-- those it linked get the new age too.
CREATE OR REPLACE FUNCTION pets_age_to_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE pet_tags SET pet_age = NEW.age
   WHERE pet_id = NEW.id AND pet_age IS DISTINCT FROM NEW.age;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER pets_age_to_tags AFTER UPDATE OF age ON pets
FOR EACH ROW WHEN (OLD.age IS DISTINCT FROM NEW.age)
EXECUTE FUNCTION pets_age_to_tags();

-- The query: web-search syntax (websearch_to_tsquery), then the first 3 lexemes, in the
-- order written, of three or more characters with a letter that no document has are each
-- replaced by itself or one of the three name or breed lexemes nearest to it by trigrams
-- (similarity >= pg_trgm.similarity_threshold, 0.3); the rest must match as written (each
-- look-up scans the trigram index of a vocabulary that only grows). A lexeme that some
-- document has is a word, not a typo, and stays as it is. Without sequential scans: for a
-- lexeme it cannot know, the planner expects hundreds of documents and reads pet_documents
-- in order to stop at the first, which for a typo (no document) reads them all.
CREATE OR REPLACE FUNCTION pet_search_query(search text) RETURNS tsquery
LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
DECLARE
  result tsquery := websearch_to_tsquery('pet_search', search);
  lexeme text;
  nearest text;
  looked_up int := 0;
BEGIN
  FOR lexeme IN
    SELECT m[1] FROM regexp_matches(result::text, '''([[:alnum:]]{3,})''', 'g')
                     WITH ORDINALITY AS r(m, n)
     GROUP BY m[1] ORDER BY min(n)
  LOOP
    EXIT WHEN looked_up = 3;
    CONTINUE WHEN lexeme !~ '[[:alpha:]]'
      OR EXISTS (SELECT 1 FROM pet_documents WHERE document @@ lexeme::tsquery);
    looked_up := looked_up + 1;
    SELECT string_agg(word, ' | ') INTO nearest
      FROM (SELECT word FROM search_words WHERE word % lexeme
             ORDER BY similarity(word, lexeme) DESC, word LIMIT 3) AS w;
    CONTINUE WHEN nearest IS NULL;
    result := ts_rewrite(result, lexeme::tsquery, (lexeme || ' | ' || nearest)::tsquery);
  END LOOP;
  RETURN result;
END $$;
