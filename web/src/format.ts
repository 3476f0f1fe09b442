// Money and times for people, in the viewer's language (Intl). Every time is the venue's
// local time, labelled with its zone: a buyer in Los Angeles and one in Berlin read the
// same "Sat, 5 Dec 2026, 20:00 CET" for a Berlin show, on every page.

const locale = (): string | undefined => (typeof navigator !== 'undefined' ? navigator.language : undefined);

/** 2500 EUR → "€25.00" in the viewer's locale (minor units by the currency's own digits). */
export function money(minor: number, currency: string): string {
  const f = new Intl.NumberFormat(locale(), { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatIn(timeZone: string, kind: 'dateTime' | 'day' | 'time'): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone}`;
  let f = formats.get(key);
  if (!f) {
    const time = { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' } as const;
    const options: Intl.DateTimeFormatOptions = kind === 'day' ? { dateStyle: 'full' }
      : kind === 'time' ? time
      : { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', ...time };
    formats.set(key, (f = new Intl.DateTimeFormat(locale(), { ...options, timeZone })));
  }
  return f;
}

/** An instant in the venue's zone, labelled: "Sat, 5 Dec 2026, 20:00 CET" (en-GB). */
export const dateTime = (iso: string, timeZone: string): string => formatIn(timeZone, 'dateTime').format(new Date(iso));

/** The day of an instant in the venue's zone: "Saturday 5 December 2026" (en-GB). */
export const dateOnly = (iso: string, timeZone: string): string => formatIn(timeZone, 'day').format(new Date(iso));

/** The time of day in the venue's zone, labelled: "20:15 CET" (a hold's end, the same evening). */
export const timeOfDay = (iso: string, timeZone: string): string => formatIn(timeZone, 'time').format(new Date(iso));
