// Seat ids for people: "F7" → "row F, seat 7"; "101-F7" → "section 101, row F, seat 7".

export function seatLabel(id: string): string {
  const m = /^(?:(.+)-)?([A-Za-z]+)(\d+)$/.exec(id);
  if (!m) return `seat ${id}`;
  const [, section, row, number] = m;
  return `${section ? `section ${section}, ` : ''}row ${row}, seat ${number}`;
}

/** "F7, F8" as a sentence: "row F, seat 7; row F, seat 8". */
export const seatList = (ids: string[]): string => ids.map(seatLabel).join('; ');
