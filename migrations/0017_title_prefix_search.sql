-- q by the beginnings of title words: every word of q begins a word of the title
-- ("moo nor" finds "Northern Moons"), and a longer word may carry one typo.

-- Edit distances. fuzzystrmatch is in contrib and trusted (the database's owner may
-- create it), and PGlite ships it. Trigram similarity (pg_trgm) was measured first:
-- it scores one-letter typos of short words ("mooms", "papre" against their words:
-- 0.33) no higher than other words ("north" against "nordic": 0.30).
create extension if not exists fuzzystrmatch;

-- Whether every word of q begins a word of title (words as bo_title_words in 0006);
-- with typos, a word of five letters or more may also be one letter wrong, missing or
-- extra. Shorter words have too many such neighbours ("moon": noon, mood, soon).
-- A q without words matches every title.
create function bo_title_matches(title text, q text, typos boolean) returns boolean
  language sql immutable parallel safe
  as $$
    select not exists (
      select from unnest(bo_title_words(q)) as w
       where not exists (
         select from unnest(bo_title_words(title)) as t
          where starts_with(t, w)
             or (typos and length(w) >= 5 and exists (
                   select from generate_series(length(w) - 1, length(w) + 1) as n
                    where levenshtein_less_equal(w, left(t, n), 1) <= 1))))
  $$;

-- The index of whole title words served `@>`, which q no longer uses.
drop index events_title_words;
