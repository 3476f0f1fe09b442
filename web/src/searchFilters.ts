// The home page's search as it travels in the address (`/?q=moon&city=Berlin`), so a
// search can be shared and survives a reload. Pure: no DOM, no API.

export interface SearchFilters { q: string; city: string; date: string }

const KEYS = ['q', 'city', 'date'] as const;

/** The filters a query string (`location.search`) names; absent ones are empty. */
export function filtersFrom(search: string): SearchFilters {
  const p = new URLSearchParams(search);
  return { q: p.get('q') ?? '', city: p.get('city') ?? '', date: p.get('date') ?? '' };
}

/** The query string for the filters: `?q=moon&city=Berlin`, or '' when none is set. */
export function searchOf(f: SearchFilters): string {
  const p = new URLSearchParams();
  for (const k of KEYS) if (f[k].trim()) p.set(k, f[k].trim());
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Each city once, in alphabetical order; a city named in two cases is listed as first seen. */
export function distinctCities(cities: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const c of cities) if (!seen.has(c.toLowerCase())) seen.set(c.toLowerCase(), c);
  return [...seen.values()].sort((a, b) => a.localeCompare(b));
}

/**
 * The choices of the city list: the cities with shows, and the address's city when it
 * names none of them (a shared link to a city whose shows are over), so the list
 * always says which city is searched. `chosen` is that city as listed (any case in).
 */
export function cityChoices(cities: readonly string[], city: string): { options: string[]; chosen: string } {
  if (!city) return { options: [...cities], chosen: '' };
  const listed = cities.find((c) => c.toLowerCase() === city.toLowerCase());
  return listed ? { options: [...cities], chosen: listed } : { options: distinctCities([...cities, city]), chosen: city };
}
