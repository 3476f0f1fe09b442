-- bo_assert: lets one statement that changes several tables undo itself when what it
-- did does not add up. A statement `... where bo_assert(<what must hold>, '<why>')` runs
-- its data-modifying CTEs; if the condition is false the exception aborts the statement,
-- and with it every change it made — the guarantee a transaction around it gave, in one
-- round trip instead of three (BEGIN, the statement, COMMIT).
-- SQLSTATE BX001 ("the guarded statement did not apply") is ours: the caller takes its
-- slower path, it is not an error anyone sees.
create function bo_assert(ok boolean, why text) returns boolean
language plpgsql as $$
begin
  if ok is not true then
    raise exception using errcode = 'BX001', message = why;
  end if;
  return true;
end
$$;
