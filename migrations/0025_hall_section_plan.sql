-- A layout may say where each of its sections is drawn on the venue plan (a rectangle
-- in a 1000 × 1000 box around the stage; src/domain/layout.ts checks it). Kept with the
-- hall, as given: {"101": {"x":…, "y":…, "w":…, "h":…, "angle"?:…}, …}; null when the
-- layout gives none (the web app derives a plan from the names then). The hall's seats
-- are unchanged.
alter table halls add column section_plan jsonb;
