-- bo_now() read the clock row through a SQL function. A SQL function with a FROM
-- clause cannot be inlined, so every statement that calls it parsed and planned its
-- body again, at each call site, on every execution: a booking's statements call it
-- about four times (pg_stat_statements: 6,507 calls and 158.8 ms of planning over
-- 1,613 bookings). In PL/pgSQL the body's plan is made once per session and kept;
-- the clock row is still read on every call, so moving clock.offset_interval moves
-- every instance's time at once, as before. Same result, same volatility (stable:
-- one value within a statement's snapshot).
create or replace function bo_now() returns timestamptz
  language plpgsql stable
  as $$ begin return now() + (select offset_interval from clock); end $$;
