import type { Database } from '../db/client.js';
import type { Inventory } from './inventory.js';
import type { UserTokens } from '../auth/tokens.js';
import type { Metrics } from '../metrics.js';
import type { Config } from '../config.js';
import type { HallCatalog } from './hallCatalog.js';
import type { SeatMaps } from './seatMaps.js';
import type { SeatStreams } from '../live/seatStreams.js';
import type { SeatFeed } from '../live/seatFeed.js';
import type { PaymentProvider } from '../payments/provider.js';
import type { TicketSigner } from '../tickets/signer.js';
import type { HoldTally } from './holdTally.js';
import type { KnownTaken } from './knownTaken.js';
import type { RateLimits } from '../abuse/rateLimits.js';
import type { ClientExemptions } from '../abuse/exemptions.js';
import type { Logger } from 'pino';
import type { ShowRules } from './showRules.js';
import type { WaitingRoom } from '../waiting-room/room.js';
import type { PurchaseLimits } from '../waiting-room/purchaseLimits.js';
import type { KnownAccounts } from './knownAccounts.js';
import type { AwaitedEvents } from './awaitedEvents.js';
import type { EventRecords } from './eventRecords.js';
import type { Warmup } from './warmup.js';

/** What every use-case may touch; built once in main.ts (or a test) and passed down. */
export interface Context {
  config: Readonly<Config>;
  /** The control database: accounts, the catalog, show placements (and, unsharded, every show's inventory too). */
  db: Database;
  /** The door to a show's inventory (./inventory.ts): use it for every show-scoped statement. */
  inventory: Inventory;
  tokens: UserTokens;
  metrics: Metrics;
  halls: HallCatalog;
  seatMaps: SeatMaps;
  /** This instance's reader of the seat change feed. */
  seatFeed: SeatFeed;
  seatStreams: SeatStreams;
  payments: PaymentProvider;
  tickets: TicketSigner;
  holdTally: HoldTally;
  /** Seats this instance knows are taken: under load, holds for them are refused without the database (./knownTaken.ts). */
  knownTaken: KnownTaken;
  rateLimits: RateLimits;
  rateLimitExempt: ClientExemptions;
  /** The instance's logger (the HTTP app's too): business events at info, with a stable `event` name. */
  log: Logger;
  showRules: ShowRules;
  room: WaitingRoom;
  purchaseLimits: PurchaseLimits;
  /** Whether a token's account exists, without the control database on every hold (./knownAccounts.ts). */
  accounts: KnownAccounts;
  /** Provider events giving their booking request a moment to record the same answer (./awaitedEvents.ts). */
  awaitedEvents: AwaitedEvents;
  /** Provider events recorded a batch at a time (./eventRecords.ts). */
  eventRecords: EventRecords;
  /** The start's warm-up (./warmup.ts): /readyz answers 503 while it runs; none in contexts that never warm up. */
  warmup?: Warmup;
}
