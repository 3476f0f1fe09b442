// Pure judges of a concurrent hold trial: given every answer and the seat rows the
// database holds afterwards, they list each broken invariant (DESIGN.md 2 and 3).
// They take no service, so the control test can feed them a naive claim's outcome
// (and hand-made broken outcomes) to prove they notice a double hold.
import type { SeatRow } from './seatRows.js';

export interface HoldAttempt {
  /** The buyer's user id. */
  buyer: string;
  /** The seats the buyer asked for, in request order. */
  requested: readonly string[];
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

/**
 * Everybody asked for the one `seat`: exactly one 201, every other answer a 409
 * SEAT_UNAVAILABLE naming that seat, and the row held by the winner's hold.
 */
export function sameSeatViolations(seat: string, attempts: readonly HoldAttempt[], row: SeatRow | undefined): string[] {
  const problems: string[] = [];
  const winners = attempts.filter((a) => a.status === 201);
  if (winners.length !== 1) problems.push(`${winners.length} buyers were given seat ${seat} (want exactly 1)`);
  for (const a of attempts) {
    if (a.status === 201) {
      if (!sameSet(a.body?.seats ?? [], [seat])) problems.push(`a 201 names seats ${JSON.stringify(a.body?.seats)}, not [${seat}]`);
      continue;
    }
    if (a.status !== 409 || a.body?.code !== 'SEAT_UNAVAILABLE') {
      problems.push(`buyer ${a.buyer} got ${a.status} ${a.body?.code ?? ''} (want 409 SEAT_UNAVAILABLE)`);
    } else if (!sameSet(a.body.taken ?? [], [seat])) {
      problems.push(`a 409 names taken ${JSON.stringify(a.body.taken)}, not [${seat}]`);
    }
  }
  if (!row) problems.push(`no row for seat ${seat}`);
  else if (winners.length === 1) {
    const w = winners[0]!;
    if (row.status !== 'held' || row.hold_id !== w.body?.hold_id || row.holder_id !== w.buyer) {
      problems.push(`seat ${seat} row is ${row.status} by hold ${row.hold_id} of ${row.holder_id}; the winner is hold ${w.body?.hold_id} of ${w.buyer}`);
    }
  }
  return problems;
}

/**
 * Overlapping multi-seat holds, all fired at once on seats that were free.
 * `rows` must include every seat of the pool. `staleHoldIds` are earlier holds whose
 * expiry has passed: they may still sit on a row, but must never make a seat "taken".
 */
export function overlappingSetsViolations(
  attempts: readonly HoldAttempt[],
  rows: readonly SeatRow[],
  staleHoldIds: ReadonlySet<string> = new Set(),
): string[] {
  const problems: string[] = [];
  const winners = attempts.filter((a) => a.status === 201);
  const byHoldId = new Map<string, HoldAttempt>();
  const ownerOfSeat = new Map<string, HoldAttempt>();

  for (const a of attempts) {
    if (a.status === 201) continue;
    if (a.status >= 500) problems.push(`buyer ${a.buyer} got ${a.status} (a 5xx)`);
    else if (a.status !== 409 || a.body?.code !== 'SEAT_UNAVAILABLE') {
      problems.push(`buyer ${a.buyer} got ${a.status} ${a.body?.code ?? ''} (want 201 or 409 SEAT_UNAVAILABLE)`);
    }
  }
  for (const w of winners) {
    const id = w.body?.hold_id as string | undefined;
    if (!id || byHoldId.has(id)) problems.push(`hold id ${id} is missing or returned twice`);
    else byHoldId.set(id, w);
    if (!sameSet(w.body?.seats ?? [], w.requested)) problems.push(`hold ${id} names ${JSON.stringify(w.body?.seats)}, asked ${JSON.stringify(w.requested)}`);
    for (const seat of w.requested) {
      const other = ownerOfSeat.get(seat);
      if (other) problems.push(`seat ${seat} is in two 201 answers: hold ${other.body?.hold_id} and hold ${id}`);
      else ownerOfSeat.set(seat, w);
    }
  }

  const rowOf = new Map(rows.map((r) => [r.seat_id, r]));
  const seatsOfHold = new Map<string, string[]>();
  for (const r of rows) {
    if (!r.hold_id) {
      if (r.status !== 'available') problems.push(`seat ${r.seat_id} is ${r.status} without a hold id`);
      continue;
    }
    const w = byHoldId.get(r.hold_id);
    if (w) {
      seatsOfHold.set(r.hold_id, [...(seatsOfHold.get(r.hold_id) ?? []), r.seat_id]);
      if (r.status !== 'held' || r.holder_id !== w.buyer) problems.push(`seat ${r.seat_id} of hold ${r.hold_id} is ${r.status} for ${r.holder_id}, want held for ${w.buyer}`);
    } else if (!staleHoldIds.has(r.hold_id)) {
      problems.push(`seat ${r.seat_id} is held by hold ${r.hold_id}, which no 201 returned (a 409 took a seat?)`);
    }
  }
  for (const [id, w] of byHoldId) {
    const got = seatsOfHold.get(id) ?? [];
    if (!sameSet(got, w.requested)) problems.push(`hold ${id} holds ${JSON.stringify(got.sort())} in the database, asked ${JSON.stringify(w.requested)} (partial hold)`);
  }

  for (const a of attempts) {
    if (a.status !== 409 || a.body?.code !== 'SEAT_UNAVAILABLE') continue;
    const taken: string[] = a.body.taken ?? [];
    if (taken.length === 0) problems.push(`a 409 for ${JSON.stringify(a.requested)} names no taken seat`);
    for (const seat of taken) {
      if (!a.requested.includes(seat)) problems.push(`a 409 names ${seat} as taken, which it did not ask for`);
      const row = rowOf.get(seat);
      if (!row || !row.hold_id || !byHoldId.has(row.hold_id)) {
        problems.push(`a 409 names ${seat} as taken, but no winner of this trial holds it (row: ${row?.status} ${row?.hold_id})`);
      }
    }
  }
  return problems;
}
