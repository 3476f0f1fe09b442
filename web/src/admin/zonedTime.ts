// Wall-clock times in a venue's time zone ↔ instants in UTC, for datetime-local inputs.
// Intl gives a zone's offset at an instant; the wall time is solved for it (DST-aware).

function partsIn(instant: number, timeZone: string): Record<string, number> {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instant))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** The zone's offset from UTC at an instant, in ms (Paris in winter: +3,600,000). */
function offsetAt(instant: number, timeZone: string): number {
  const p = partsIn(instant, timeZone);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** "2026-12-24T20:00" in Europe/Paris → "2026-12-24T19:00:00.000Z"; null when the text is not a date-time. */
export function zonedToUtc(local: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  let instant = wall - offsetAt(wall, timeZone);
  // Near a DST change the offset at the first guess differs: solve once more.
  instant = wall - offsetAt(instant, timeZone);
  return new Date(instant).toISOString();
}

/** An instant → "YYYY-MM-DDTHH:mm" as the wall clock in that zone shows it (for datetime-local). */
export function utcToZoned(iso: string, timeZone: string): string {
  const p = partsIn(Date.parse(iso), timeZone);
  const two = (n: number | undefined) => String(n ?? 0).padStart(2, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}`;
}

/** Every IANA zone this browser knows (for a datalist); UTC first. */
export function timeZones(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}
