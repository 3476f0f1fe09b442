// Prices typed in major units ("25.50") ↔ integers in minor units (2550), by the currency's own digits.

export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "25.50" or "25,50" → 2550 for EUR; null when it is not a non-negative amount with at most the currency's digits. */
export function toMinor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const t = text.trim().replace(',', '.');
  const m = /^(\d{1,10})(?:\.(\d*))?$/.exec(t);
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length > digits) return null;
  return Number(m[1]) * 10 ** digits + (frac ? Number(frac.padEnd(digits, '0')) : 0);
}

/** 2550 EUR → "25.50" (plain, for an input's value). */
export function toMajorText(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}
