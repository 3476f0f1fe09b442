// Money and dates in the viewer's locale (Intl); times in the venue's time zone when known.

const locale = (): string | undefined => (typeof navigator !== 'undefined' ? navigator.language : undefined);

/** 2500 EUR → "€25.00" in the viewer's locale (minor units by the currency's own digits). */
export function money(minor: number, currency: string): string {
  const f = new Intl.NumberFormat(locale(), { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

export function dateTime(iso: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
}

export function dateOnly(iso: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'full', timeZone }).format(new Date(iso));
}
