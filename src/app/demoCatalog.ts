// The demo catalog `npm start` makes on first run: cinemas in three cities, a
// 60,000-seat stadium, films, a concert, and shows over the next days.
import type { Layout, LayoutRow } from '../domain/layout.js';
import { countVenues } from '../db/catalog.js';
import { localTimeIn } from '../db/clock.js';
import { createEvent, createHall, createShow, createVenue } from './catalog.js';
import type { Context } from './context.js';

const CINEMAS = [
  { city: 'Pune', name: 'Deccan Talkies', timezone: 'Asia/Kolkata', currency: 'INR', prices: { standard: 25000, premium: 40000 } },
  { city: 'Berlin', name: 'Kino am Kanal', timezone: 'Europe/Berlin', currency: 'EUR', prices: { standard: 1100, premium: 1500 } },
  { city: 'Lisbon', name: 'Cinema Tejo', timezone: 'Europe/Lisbon', currency: 'EUR', prices: { standard: 850, premium: 1200 } },
];

const FILMS = [
  { title: 'The Long Matinee', duration_minutes: 118 },
  { title: 'Northern Lights', duration_minutes: 95 },
  { title: 'Paper Moons', duration_minutes: 104 },
];

/** Ten rows of twenty: A–H standard, I–J premium, wheelchair places at both ends of row A. */
export function screenLayout(): Layout {
  const rows: LayoutRow[] = 'ABCDEFGHIJ'.split('').map((row) => ({
    row, seats: 20, tier: row >= 'I' ? 'premium' : 'standard', ...(row === 'A' ? { accessible: [1, 2, 19, 20] } : {}),
  }));
  return { rows };
}

/** 24 sections × 25 rows × 100 seats = 60,000: lower bowl 101–112, upper bowl 201–212. */
export function stadiumLayout(): Layout {
  const rows: LayoutRow[] = [];
  for (const bowl of [100, 200]) {
    for (let s = 1; s <= 12; s++) {
      for (const row of 'ABCDEFGHIJKLMNOPQRSTUVWXY') {
        rows.push({ row, seats: 100, tier: bowl === 100 ? 'lower' : 'upper', section: String(bowl + s), ...(row === 'A' ? { accessible: [1, 2, 3, 4] } : {}) });
      }
    }
  }
  return { rows };
}

/** A local wall-clock time `days` from today in `timezone`, as an RFC 3339 UTC instant (database clock). */
async function localTime(ctx: Context, timezone: string, days: number, time: string): Promise<string> {
  return (await localTimeIn(ctx.db, timezone, days, time)).toISOString();
}

/** Seeds the demo catalog when there is no venue yet; returns whether it did. */
export async function seedDemoCatalog(ctx: Context, say: (msg: string) => void = () => {}): Promise<boolean> {
  if ((await countVenues(ctx.db)) > 0) return false;
  say('seeding the demo catalog (first run)…');
  const films = [];
  for (const f of FILMS) films.push(await createEvent(ctx, { ...f, kind: 'film' }));
  const concert = await createEvent(ctx, { title: 'Aurora Live', kind: 'concert', duration_minutes: 150 });

  let shows = 0;
  for (const c of CINEMAS) {
    const venue = await createVenue(ctx, { name: c.name, city: c.city, timezone: c.timezone });
    for (const [i, screenName] of ['Screen 1', 'Screen 2'].entries()) {
      const hall = await createHall(ctx, { venue_id: venue.id, name: screenName, layout: screenLayout() });
      for (let day = 0; day < 3; day++) {
        for (const [j, time] of ['18:00', '21:00'].entries()) {
          const film = films[(i + j + day) % films.length]!;
          const starts_at = await localTime(ctx, c.timezone, day === 0 ? 1 : day + 1, time);
          await createShow(ctx, { event_id: film.id, hall_id: hall.id, starts_at, currency: c.currency, price_tiers: c.prices });
          shows++;
        }
      }
    }
    say(`  ${c.city}: ${c.name}, 2 screens of 200 seats, 12 shows`);
  }
  // One cinema show whose sale opens tomorrow, to show SALE_NOT_OPEN.
  const berlin = CINEMAS[1]!;
  const later = await createVenue(ctx, { name: 'Kino Premiere', city: berlin.city, timezone: berlin.timezone });
  const premiereHall = await createHall(ctx, { venue_id: later.id, name: 'Saal 1', layout: screenLayout() });
  await createShow(ctx, {
    event_id: films[0]!.id, hall_id: premiereHall.id, currency: berlin.currency, price_tiers: berlin.prices,
    starts_at: await localTime(ctx, berlin.timezone, 5, '20:00'),
    sale_opens_at: await localTime(ctx, berlin.timezone, 1, '10:00'),
  });
  shows++;
  say(`  ${berlin.city}: ${later.name}, 1 premiere whose sale opens tomorrow at 10:00 (holds answer SALE_NOT_OPEN until then)`);

  const stadiumVenue = await createVenue(ctx, { name: 'Estádio do Rio', city: 'Lisbon', timezone: 'Europe/Lisbon' });
  const stadium = await createHall(ctx, { venue_id: stadiumVenue.id, name: 'Main bowl', layout: stadiumLayout() });
  await createShow(ctx, {
    event_id: concert.id, hall_id: stadium.id, currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 },
    starts_at: await localTime(ctx, 'Europe/Lisbon', 7, '21:00'), per_user_limit: 6, waiting_room: true,
  });
  shows++;
  say(`  Lisbon: ${stadiumVenue.name}, ${stadium.seat_count} seats, Aurora Live with the waiting room`);
  say(`seeded ${shows} shows`);
  return true;
}
