// The rehearsal's options: a preset (cinema, stadium, weekday, small) and the
// command-line flags that override it. Parsed once, checked, frozen.
import { parseArgs } from 'node:util';

export type PresetName = 'cinema' | 'stadium' | 'weekday' | 'small';

export interface Options {
  preset: PresetName;
  buyers: number;
  /** Seats of the hot show (weekday: of each show). */
  seats: number;
  /** Shows on sale (1 but for weekday). */
  shows: number;
  arrivalSeconds: number;
  seed: number;
  waitingRoom: boolean;
  /** Every buyer reads the seat map from the service, instead of through the modelled edge cache. */
  originMaps: boolean;
  /** Stadium halls: read the sections summary, then one section's seats. */
  sections: boolean;
  /** Each buyer wants between these many seats (inclusive). */
  seatsPerBuyer: [number, number];
  /** Share of buyers who ask for best available (`{best_available: {count}}`) instead of choosing seats on the map. */
  bestAvailableRate: number;
  /** Weekday: the share of arrivals who only browse. */
  browseOnlyRate: number;
  /**
   * Share of buyers who, finding the show sold out while some seats are still held,
   * join its waiting list and wait (a few minutes at most) for an offer, then pay it.
   */
  waitlistRate: number;
  /** Share of buyers who walk away after the hold (half release it, half let it expire). */
  abandonRate: number;
  declineRate: number;
  slowRate: number;
  timeoutRate: number;
  chaos: boolean;
  /** Hold attempts a buyer makes before giving up (a lost race counts as one). */
  maxAttempts: number;
  holdTtlSeconds: number;
  /** The waiting room's admission ceiling per minute (the service's WAITING_ROOM_ADMIT_PER_MINUTE) when the rehearsal starts it. */
  admitPerMinute: number;
  /** No buyer starts a request after this many seconds of sale. */
  maxSeconds: number;
  /** After the sale: how long the service may take to settle before the audit reads it anyway. */
  settleSeconds: number;
  url: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  paysimUrl: string | null;
  reportDir: string | null;
  /** Extra environment for a service the rehearsal starts (tests shorten timeouts with it). */
  serviceEnv: Record<string, string>;
}

type Preset = Omit<Options, 'preset' | 'seed' | 'url' | 'adminEmail' | 'adminPassword' | 'paysimUrl' | 'reportDir' | 'serviceEnv' | 'chaos' | 'originMaps'> & { chaos: boolean };

const MIX = { abandonRate: 0.05, declineRate: 0.03, slowRate: 0.05, timeoutRate: 0.02 };

export const PRESETS: Readonly<Record<PresetName, Readonly<Preset>>> = Object.freeze({
  cinema: {
    buyers: 100_000, seats: 200, shows: 1, arrivalSeconds: 60, waitingRoom: false, sections: false, seatsPerBuyer: [1, 4], bestAvailableRate: 0.3, browseOnlyRate: 0, waitlistRate: 0,
    ...MIX, chaos: false, maxAttempts: 6, holdTtlSeconds: 60, admitPerMinute: 600, maxSeconds: 600, settleSeconds: 120,
  },
  stadium: {
    buyers: 200_000, seats: 60_000, shows: 1, arrivalSeconds: 180, waitingRoom: true, sections: true, seatsPerBuyer: [1, 4], bestAvailableRate: 0.7, browseOnlyRate: 0, waitlistRate: 0.5,
    ...MIX, chaos: false, maxAttempts: 6, holdTtlSeconds: 120, admitPerMinute: 4800, maxSeconds: 780, settleSeconds: 120,
  },
  weekday: {
    buyers: 7_200, seats: 300, shows: 40, arrivalSeconds: 300, waitingRoom: false, sections: false, seatsPerBuyer: [1, 4], bestAvailableRate: 0.3, browseOnlyRate: 0.5, waitlistRate: 0,
    ...MIX, chaos: false, maxAttempts: 4, holdTtlSeconds: 120, admitPerMinute: 600, maxSeconds: 420, settleSeconds: 120,
  },
  // The rehearsal `npm test` runs: small enough for a minute, with chaos on.
  small: {
    buyers: 2_000, seats: 200, shows: 1, arrivalSeconds: 10, waitingRoom: true, sections: false, seatsPerBuyer: [1, 4], bestAvailableRate: 0.3, browseOnlyRate: 0, waitlistRate: 0.3,
    ...MIX, chaos: true, maxAttempts: 6, holdTtlSeconds: 15, admitPerMinute: 1200, maxSeconds: 60, settleSeconds: 60,
  },
});

export const USAGE = `npm run onsale -- [options]
  --preset cinema|stadium|weekday|small   (default cinema)
  --buyers N  --seats N  --arrival-seconds S  --seed N
  --waiting-room | --no-waiting-room      --admit-per-minute N (ceiling of a service it starts)
  --decline-rate R  --slow-rate R  --timeout-rate R  --abandon-rate R   (shares 0..1)
  --best-available R                      (share 0..1 of buyers asking for best available; stadium 0.7, others 0.3)
  --waitlist R                            (share 0..1 of buyers who join a sold-out show's waiting list; stadium 0.5, small 0.3, others 0)
  --chaos | --no-chaos                    (the payment simulator's chaos settings; with --url only on --chaos, put back at the end)
  --origin-maps                           (every buyer reads the seat map from the service, no edge cache)
  --max-seconds S  --settle-seconds S  --hold-ttl-seconds S
  --url URL --admin-email E --admin-password P --paysim-url URL   (a running service)
  --report-dir DIR                        (default onsale-reports/<preset>-<time>)
Without --url it starts the service: on PostgreSQL when DATABASE_URL is set, else embedded (PGlite).`;

function share(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!(n >= 0 && n <= 1)) throw new Error(`--${name} must be a number from 0 to 1, got "${raw}"`);
  return n;
}

function whole(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** Options from argv (without node and the script) and the environment; throws with a message on bad input. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): Readonly<Options> {
  const text = { type: 'string' } as const;
  const flag = { type: 'boolean' } as const;
  const { values: v } = parseArgs({
    args: argv, strict: true, allowPositionals: false,
    options: {
      preset: text, buyers: text, seats: text, 'arrival-seconds': text, seed: text, 'waiting-room': flag, 'no-waiting-room': flag,
      'admit-per-minute': text, 'best-available': text, waitlist: text, 'decline-rate': text, 'slow-rate': text, 'timeout-rate': text, 'abandon-rate': text, chaos: flag, 'no-chaos': flag,
      'max-seconds': text, 'settle-seconds': text, 'hold-ttl-seconds': text, url: text, 'admin-email': text, 'admin-password': text, 'paysim-url': text,
      'report-dir': text, 'origin-maps': flag, help: flag,
    },
  });
  if (v.help) throw new Error(USAGE);
  const preset = (v.preset ?? 'cinema') as PresetName;
  const p = PRESETS[preset];
  if (!p) throw new Error(`--preset must be one of ${Object.keys(PRESETS).join(', ')}, got "${v.preset}"`);
  const url = v.url ?? null;
  if (url && !(v['admin-email'] ?? env.BOXOFFICE_ADMIN_EMAIL)) throw new Error('--url needs --admin-email and --admin-password (or BOXOFFICE_ADMIN_EMAIL/PASSWORD)');
  if (url && !v['paysim-url']) throw new Error('--url needs --paysim-url: the audit reads the payment simulator\'s books');
  const o: Options = {
    preset,
    buyers: whole('buyers', v.buyers, p.buyers),
    seats: whole('seats', v.seats, p.seats),
    shows: p.shows,
    arrivalSeconds: whole('arrival-seconds', v['arrival-seconds'], p.arrivalSeconds, 0),
    seed: whole('seed', v.seed, Math.floor(Math.random() * 2 ** 31), 0),
    waitingRoom: v['no-waiting-room'] ? false : v['waiting-room'] ? true : p.waitingRoom,
    originMaps: v['origin-maps'] === true,
    sections: p.sections,
    seatsPerBuyer: p.seatsPerBuyer,
    bestAvailableRate: share('best-available', v['best-available'], p.bestAvailableRate),
    browseOnlyRate: p.browseOnlyRate,
    waitlistRate: share('waitlist', v.waitlist, p.waitlistRate),
    abandonRate: share('abandon-rate', v['abandon-rate'], p.abandonRate),
    declineRate: share('decline-rate', v['decline-rate'], p.declineRate),
    slowRate: share('slow-rate', v['slow-rate'], p.slowRate),
    timeoutRate: share('timeout-rate', v['timeout-rate'], p.timeoutRate),
    // A simulator the rehearsal did not start is left as found, unless --chaos says otherwise.
    chaos: v['no-chaos'] ? false : v.chaos ? true : url ? false : p.chaos,
    maxAttempts: p.maxAttempts,
    holdTtlSeconds: whole('hold-ttl-seconds', v['hold-ttl-seconds'], p.holdTtlSeconds),
    admitPerMinute: whole('admit-per-minute', v['admit-per-minute'], p.admitPerMinute),
    maxSeconds: whole('max-seconds', v['max-seconds'], p.maxSeconds),
    settleSeconds: whole('settle-seconds', v['settle-seconds'], p.settleSeconds, 0),
    url,
    adminEmail: v['admin-email'] ?? env.BOXOFFICE_ADMIN_EMAIL ?? null,
    adminPassword: v['admin-password'] ?? env.BOXOFFICE_ADMIN_PASSWORD ?? null,
    paysimUrl: v['paysim-url'] ?? null,
    reportDir: v['report-dir'] ?? null,
    serviceEnv: {},
  };
  if (o.declineRate + o.slowRate + o.timeoutRate > 1) throw new Error('--decline-rate + --slow-rate + --timeout-rate must not exceed 1');
  if (o.sections && o.seats % 1000 !== 0 && o.seats > 1000) throw new Error('--seats for a stadium: a multiple of 1,000 (sections of 1,000 seats)');
  return Object.freeze(o);
}

/** The simulator's chaos settings for --chaos (see packages/paysim/src/chaos.ts). */
export const CHAOS_SETTINGS = Object.freeze({
  error_rate: 0.05,
  timeout_after_commit_rate: 0.05,
  webhook_duplicate_rate: 0.2,
  webhook_delay_ms: 2000,
  webhook_reorder: true,
});
