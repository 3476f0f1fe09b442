-- Finding things: title words for `q`, and creation order for the operators' lists.

-- A title's words: runs of letters and digits, lower-cased. `q` matches an event
-- when every word of q is one of its title's words, so both sides go through this
-- one function; immutable, so an index can hold the titles' words.
create function bo_title_words(text) returns text[]
  language sql immutable strict parallel safe
  as $$ select array_remove(regexp_split_to_array(lower($1), '[^[:alnum:]]+'), '') $$;

create index events_title_words on events using gin (bo_title_words(title));

-- Operators page through what they created, oldest first: (created_at, id) is the
-- position a cursor names, so rows added while paging land after it, never inside.
create index venues_created on venues (created_at, id);
create index halls_created on halls (created_at, id);
create index events_created on events (created_at, id);
create index shows_created on shows (created_at, id);
