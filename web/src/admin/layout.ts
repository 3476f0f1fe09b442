// A hall layout as the editor holds it (text fields per row), to and from the API's
// `layout` JSON, and checked before it is sent: the same rules the service applies.
import type { Layout, LayoutRow } from '../api/types.js';

export const MAX_HALL_SEATS = 100_000;
const LABEL = /^[A-Za-z0-9]{1,16}$/;

/** One row as typed: `seats` is a count ("20") or seat numbers ("1-10, 14"). */
export interface DraftRow { row: string; seats: string; tier: string; section: string; accessible: string }

export interface FieldError { path: string; message: string }

export const emptyRow = (row = ''): DraftRow => ({ row, seats: '', tier: 'standard', section: '', accessible: '' });

/** "1-3, 7" → [1, 2, 3, 7]; null when it is not a list of numbers and ranges. */
export function parseNumbers(text: string): number[] | null {
  const out: number[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) return null;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || to < from || to - from > MAX_HALL_SEATS) return null;
    for (let n = from; n <= to; n++) out.push(n);
  }
  return out;
}

/** [1, 2, 3, 7] → "1-3, 7". */
export function formatNumbers(ns: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ns.length; ) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j]! + 1) j++;
    parts.push(j === i ? String(ns[i]) : `${ns[i]}-${ns[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** The seat numbers a row's `seats` text stands for: a lone number is a count (1..n). */
export function seatNumbers(seats: string): number[] | null {
  const t = seats.trim();
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    return n >= 1 && n <= MAX_HALL_SEATS ? Array.from({ length: n }, (_, k) => k + 1) : null;
  }
  return t ? parseNumbers(t) : null;
}

/** The client-side check: every problem with its path in the API's own form (/layout/rows/2/tier). */
export function checkDraft(rows: readonly DraftRow[]): FieldError[] {
  const errors: FieldError[] = [];
  if (rows.length === 0) errors.push({ path: '/layout/rows', message: 'A hall needs at least one row.' });
  const seen = new Map<string, number>();
  let total = 0;
  rows.forEach((r, i) => {
    const at = `/layout/rows/${i}`;
    const name = r.row.trim();
    if (!name) errors.push({ path: `${at}/row`, message: `Row ${i + 1} needs a name.` });
    else if (!LABEL.test(name)) errors.push({ path: `${at}/row`, message: `Row name "${name}" may only use letters and digits (up to 16).` });
    const section = r.section.trim();
    if (section && !LABEL.test(section)) errors.push({ path: `${at}/section`, message: `Section "${section}" may only use letters and digits (up to 16).` });
    if (name) {
      const key = `${section}\u0000${name}`;
      const first = seen.get(key);
      if (first !== undefined) {
        errors.push({ path: `${at}/row`, message: `Row ${name}${section ? ` in section ${section}` : ''} appears twice (rows ${first + 1} and ${i + 1}).` });
      } else seen.set(key, i);
    }
    if (!r.tier.trim()) errors.push({ path: `${at}/tier`, message: `Row ${name || i + 1} needs a price tier.` });
    else if (r.tier.trim().length > 40) errors.push({ path: `${at}/tier`, message: 'A tier name has at most 40 characters.' });
    const numbers = seatNumbers(r.seats);
    if (!numbers || numbers.length === 0) {
      errors.push({ path: `${at}/seats`, message: `Row ${name || i + 1}: seats must be a count from 1 to ${MAX_HALL_SEATS} or seat numbers like "1-10, 14".` });
      return;
    }
    if (new Set(numbers).size !== numbers.length) errors.push({ path: `${at}/seats`, message: `Row ${name || i + 1} lists a seat number twice.` });
    total += numbers.length;
    if (r.accessible.trim()) {
      const acc = parseNumbers(r.accessible);
      const inRow = new Set(numbers);
      if (!acc) errors.push({ path: `${at}/accessible`, message: `Row ${name || i + 1}: accessible seats must be numbers like "1, 2".` });
      else {
        const outside = acc.filter((n) => !inRow.has(n));
        if (outside.length) errors.push({ path: `${at}/accessible`, message: `Row ${name || i + 1} has no seat ${outside.slice(0, 3).join(', ')}.` });
      }
    }
  });
  if (total > MAX_HALL_SEATS) errors.push({ path: '/layout/rows', message: `A hall holds at most ${MAX_HALL_SEATS.toLocaleString()} seats (this one: ${total.toLocaleString()}).` });
  return errors;
}

/** The API's layout from a draft that passed checkDraft. */
/** The API's layout; `sections` (placements read from a file) sent as read, the service checks them. */
export function toLayout(rows: readonly DraftRow[], sections?: Layout['sections']): Layout {
  return {
    ...(sections?.length ? { sections } : {}),
    rows: rows.map((r): LayoutRow => {
      const t = r.seats.trim();
      const seats = /^\d+$/.test(t) ? Number(t) : seatNumbers(t)!;
      const acc = r.accessible.trim() ? parseNumbers(r.accessible) ?? [] : [];
      return {
        row: r.row.trim(), seats, tier: r.tier.trim(),
        ...(r.section.trim() ? { section: r.section.trim() } : {}),
        ...(acc.length ? { accessible: acc } : {}),
      };
    }),
  };
}

const isNumberList = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));

/**
 * A layout file's text → editor rows, or the reasons it cannot be read. What is read is
 * checked by checkDraft afterwards (duplicates, counts, tiers), like typed rows.
 */
export function readLayoutFile(text: string): { rows: DraftRow[]; sections?: Layout['sections'] } | { errors: FieldError[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { errors: [{ path: '', message: `The file is not JSON: ${(e as Error).message}` }] };
  }
  // Accept the layout itself or a whole hall body ({name, layout}).
  const layout = (data && typeof data === 'object' && 'layout' in data ? (data as { layout: unknown }).layout : data) as { rows?: unknown; sections?: unknown } | null;
  if (!layout || typeof layout !== 'object' || !Array.isArray(layout.rows)) {
    return { errors: [{ path: '/layout', message: 'The file must hold {"rows": [{"row": "A", "seats": 20, "tier": "standard"}, …]}.' }] };
  }
  const errors: FieldError[] = [];
  const rows = layout.rows.map((raw, i): DraftRow => {
    const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const at = `/layout/rows/${i}`;
    let seats = '';
    if (typeof r.seats === 'number' && Number.isInteger(r.seats)) seats = String(r.seats);
    else if (isNumberList(r.seats)) seats = r.seats.length === 1 ? `${r.seats[0]}-${r.seats[0]}` : formatNumbers(r.seats);
    else errors.push({ path: `${at}/seats`, message: `Row ${i + 1}: "seats" must be a count or a list of seat numbers.` });
    if (r.accessible !== undefined && !isNumberList(r.accessible)) errors.push({ path: `${at}/accessible`, message: `Row ${i + 1}: "accessible" must be a list of seat numbers.` });
    return {
      row: typeof r.row === 'string' ? r.row : r.row === undefined ? '' : String(r.row),
      seats,
      tier: typeof r.tier === 'string' ? r.tier : '',
      section: typeof r.section === 'string' ? r.section : '',
      accessible: isNumberList(r.accessible) ? formatNumbers(r.accessible) : '',
    };
  });
  // Section placements are kept as written: the service checks them against the rows and the box.
  if (layout.sections !== undefined && !Array.isArray(layout.sections)) {
    errors.push({ path: '/layout/sections', message: '"sections" must be a list of {"section": "101", "plan": {"x", "y", "w", "h"}}.' });
  }
  const sections = Array.isArray(layout.sections) ? (layout.sections as Layout['sections']) : undefined;
  return errors.length ? { errors } : { rows, ...(sections?.length ? { sections } : {}) };
}
