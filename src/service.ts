// Wires one instance of boxoffice: database, migrations, context, HTTP app, sweeper.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { connectPostgres, openDatabase, type Database } from './db/client.js';
import { metered, TripLedger } from './db/trips.js';
import { migrate } from './db/migrate.js';
import { sharedSecret } from './db/secrets.js';
import { UserTokens } from './auth/tokens.js';
import { Metrics } from './metrics.js';
import { HallCatalog } from './app/hallCatalog.js';
import { SeatMaps } from './app/seatMaps.js';
import { SeatStreams } from './live/seatStreams.js';
import { SeatFeed } from './live/seatFeed.js';
import { LiveMetrics } from './live/liveMetrics.js';
import { streamCapacity, type OpenFileLimit } from './live/streamCapacity.js';
import { capConnections, connectionCapacity } from './http/connectionCaps.js';
import { Counter } from 'prom-client';
import { readOpenFileLimit } from './live/openFileLimit.js';
import { ensureAdmin } from './app/accounts.js';
import type { Context } from './app/context.js';
import { buildApp } from './http/app.js';
import { MetricsListener } from './http/metricsEndpoint.js';
import { Sweeper } from './workers/sweeper.js';
import { Workers } from './workers/supervisor.js';
import { leaseHolder } from './workers/taskLease.js';
import { StripeProvider, type PaymentProvider } from './payments/provider.js';
import { TicketSigner } from './tickets/signer.js';
import { HoldTally } from './app/holdTally.js';
import { KnownTaken } from './app/knownTaken.js';
import { RateLimits } from './abuse/rateLimits.js';
import { ClientExemptions } from './abuse/exemptions.js';
import type { Logger } from 'pino';
import { loggerFrom, silentLogger, WARMUP_ADDRESS } from './http/logging.js';
import { DomainError } from './domain/errors.js';
import { ShowRules } from './app/showRules.js';
import { WaitingRoom } from './waiting-room/room.js';
import { soldOut } from './db/waitingRoom.js';
import { PurchaseLimits } from './waiting-room/purchaseLimits.js';
import { singleInventory } from './app/inventory.js';
import { ShardedInventory } from './app/shards.js';
import { KnownAccounts } from './app/knownAccounts.js';
import { AwaitedEvents } from './app/awaitedEvents.js';
import { EventRecords } from './app/eventRecords.js';
import { AWAITED_EVENT_PAUSE_MS, AWAITED_EVENTS_MAX } from './app/webhooks.js';
import { existingUsers } from './db/users.js';
import { registerRoomMetrics } from './waiting-room/roomMetrics.js';
import { Warmup, type WarmupReport } from './app/warmup.js';

export interface Service {
  ctx: Context;
  app: FastifyInstance;
  sweeper: Sweeper;
  workers: Workers;
  /** Starts the separate /metrics listener when METRICS_PORT is set; its address, or null. */
  listenMetrics(): Promise<AddressInfo | null>;
  /** Warms the instance within WARMUP_MS (./app/warmup.ts); /readyz answers 503 "warming up" meanwhile. Never throws. */
  warm(): Promise<WarmupReport>;
  close(): Promise<void>;
}

/** The provider named by the configuration: Stripe (or a running simulator), else the bundled simulator's address. */
export function paymentProvider(config: Readonly<Config>): PaymentProvider {
  return new StripeProvider({
    secretKey: config.stripeSecretKey ?? 'sk_test_sim',
    apiUrl: config.stripeSecretKey ? config.stripeApiUrl : `http://127.0.0.1:${config.paysimPort}`,
    webhookSecret: config.stripeWebhookSecret,
  });
}

export async function openService(
  config: Readonly<Config>,
  opts: {
    db?: Database; logger?: boolean | object | Logger; log?: (msg: string) => void; payments?: PaymentProvider;
    /** The open file limit to size the streams by (tests); by default the process's own. */
    openFiles?: OpenFileLimit;
  } = {},
): Promise<Service> {
  const base = opts.db ?? (await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? null : path.join(config.dataDir, 'pglite'),
    poolSize: config.poolSize,
    preparedStatements: config.preparedStatements,
    bounds: config.dbBounds,
  }));
  // Every statement is counted by what sent it: `db` is the request path's; the
  // background gets its own origins (db.as), so /metrics tells them apart.
  const trips = new TripLedger();
  const db = metered(base, trips, 'request');
  const rateLimitExempt = new ClientExemptions(config.rateLimitExempt);
  await migrate(db.as('startup'), opts.log);
  // SHARD_URLS: a pool per shard, with the same bounds; the same migrations on each.
  const shardBases: { name: string; db: Database }[] = [];
  try {
    for (const s of config.shards) {
      const shardDb = metered(connectPostgres(s.url, config.poolSize, config.preparedStatements, config.dbBounds), trips, 'request');
      shardBases.push({ name: s.name, db: shardDb });
      await migrate(shardDb.as('startup'), (m) => opts.log?.(`shard ${s.name}: ${m}`));
    }
  } catch (err) {
    await Promise.all(shardBases.map((s) => s.db.close().catch(() => {})));
    if (!opts.db) await base.close();
    throw err;
  }
  // Every instance must verify every other's tokens: the secret comes from the
  // environment, or is made once and kept in the database.
  const secret = config.tokenSecret ?? (await sharedSecret(db, 'user_token_hs256', () => randomBytes(32).toString('base64url')));
  const halls = new HallCatalog(db);
  // The logger given (main.ts) or made from options (tests: `{ level, stream }`); with
  // none the app gets no logger at all (no child logger per request).
  const appLog = loggerFrom('boxoffice', opts.logger);
  const log = appLog ?? silentLogger();
  const roomSecret = await sharedSecret(db, 'waiting_room_hs256', () => randomBytes(32).toString('base64url'));
  const sharded = shardBases.length > 0 ? ShardedInventory.open(db, shardBases, config.placementRefreshMs, log) : null;
  const inventory = sharded ?? singleInventory(db);
  // A show's rules are read where its inventory is (its shard keeps a copy of the show's row).
  const rulesFrom = inventory.as('show_rules');
  const showRules = new ShowRules(inventory.single ? db.as('show_rules').aside()
    : async (showId) => (await rulesFrom.ofShow(showId).catch((err: unknown) => {
      // A show with no placement has no rules (null), as one with no row.
      if (err instanceof DomainError && err.code === 'NOT_FOUND') return rulesFrom.all()[0]!;
      throw err;
    })).aside(), config.waitingRoom.showRulesRefreshMs);
  const metrics = new Metrics(db.as('metrics'), trips, () => inventory.as('metrics').all());
  const purchaseLimits = new PurchaseLimits(config.purchaseConcurrency, metrics.registry);
  let streams: SeatStreams | null = null;
  const liveMetrics = new LiveMetrics(metrics.registry, () => streams?.viewerCount ?? 0);
  const seatFeed = new SeatFeed(inventory.as('seat_feed').all(), config.liveMap, liveMetrics, log);
  // Seats this instance knows are taken; under load a hold for one is refused without the
  // database (more holds in flight than the pool's connections: a claim would queue).
  const knownTaken = new KnownTaken(config.knownTaken, () => purchaseLimits.hold.inFlight > config.poolSize, () => showRules.dbNow());
  // A seat the feed reports available (released on another instance, say) may be free.
  seatFeed.listen({
    deltas: (showId, ds) => {
      for (const d of ds) knownTaken.freed(showId, d.changes.flatMap((c) => (c.status === 'available' ? [c.seat] : [])));
    },
    resync: () => knownTaken.clear(),
  });
  // With shards a map read follows a move its placement has not seen yet (ShardedInventory).
  // A map read waits up to ten publish intervals (at most 2 s, the map's staleness bound) for the changes it saw to be counted.
  const seatMaps = new SeatMaps(sharded ? (showId) => sharded.ofShowFollowingMove(showId) : (showId) => inventory.ofShow(showId),
    halls, config.seatMapCacheMs, Math.min(2000, 10 * config.liveMap.feedIntervalMs));
  // Streams past the open file limit would take the API, the pool and /healthz down with them (EMFILE).
  const openFiles = opts.openFiles ?? readOpenFileLimit();
  const capacity = streamCapacity({ configured: config.liveMap.maxViewers, limit: openFiles, poolSize: config.poolSize });
  log.info({
    open_files: capacity.assumed ? null : capacity.openFiles, open_files_assumed: capacity.assumed ? capacity.openFiles : undefined,
    reserved_files: capacity.reserve, stream_max_viewers: capacity.viewers, stream_max_per_address: config.liveMap.maxPerAddress,
  }, 'seat map streams bounded by the open file limit');
  streams = new SeatStreams(seatFeed, seatMaps, halls, { ...config.liveMap, maxViewers: capacity.viewers }, liveMetrics);
  // A show this instance finds on another shard (moved): its viewers resync from the new shard's map.
  const seatStreams = streams;
  sharded?.onMoved((showId) => seatStreams.endShow(showId));
  const ctx: Context = {
    config,
    db,
    inventory,
    tokens: new UserTokens(secret, config.tokenTtlSeconds),
    metrics,
    halls,
    seatMaps,
    seatFeed,
    seatStreams: streams,
    payments: opts.payments ?? paymentProvider(config),
    tickets: await TicketSigner.load(db, config.ticketSigningJwk),
    holdTally: new HoldTally(),
    knownTaken,
    rateLimits: RateLimits.open(config, { warn: (o, m) => log.warn(o, m) }),
    rateLimitExempt,
    log,
    showRules,
    purchaseLimits,
    warmup: new Warmup(),
    accounts: new KnownAccounts((userIds) => existingUsers(db, userIds)),
    awaitedEvents: new AwaitedEvents(AWAITED_EVENT_PAUSE_MS, AWAITED_EVENTS_MAX),
    eventRecords: new EventRecords(),
    room: WaitingRoom.open(config, roomSecret, showRules, async (showId) => soldOut(await inventory.as('waiting_room').ofShow(showId), showId),
      () => purchaseLimits.takeSignals(db.poolStats()), { warn: (o, m) => log.warn(o, m) }),
  };
  registerRoomMetrics(metrics.registry, ctx.room);
  // A room's status and admissions must not need the seat database: rules this
  // instance has not read are taken from the room's store (the ticker keeps them there).
  showRules.fallBackTo((showId) => ctx.room.store.keptRule(showId));
  // Holds as slow as the room steers them to are no distress to the holds' limit.
  purchaseLimits.hold.latencyTarget = () => (ctx.room.controller?.view().set_point_ms ?? null);
  // The holds' turn is read with their pool's own figures; with shards each show's holds
  // queue for a pool of their own, and the limit reckons from the holds alone.
  if (inventory.single) {
    purchaseLimits.hold.pool = () => {
      const pool = db.poolStats();
      return { occupancy: pool.total - pool.idle + pool.waiting, turnMs: pool.turnMs };
    };
  }
  await ensureAdmin(ctx);
  const app = await buildApp(ctx, { logger: appLog });
  // Connections, like streams, hold descriptors: capped in total below the open file limit and per address.
  const connections = connectionCapacity({ limit: openFiles, poolSize: config.poolSize });
  const refusedConnections = new Counter({
    name: 'boxoffice_connections_refused_per_address_total',
    help: 'Connections answered 503 and closed: the client address had its maximum of open connections (CONNECTIONS_MAX_PER_ADDRESS)',
    registers: [metrics.registry],
  });
  capConnections(app.server, {
    total: connections,
    perAddress: config.trustProxy === false ? config.connectionsPerAddress : null,
    exempt: (address) => rateLimitExempt.covers(address),
    refused: () => refusedConnections.inc(),
  });
  log.info({ connections_max: Number.isFinite(connections) ? connections : null, connections_max_per_address: config.trustProxy === false ? config.connectionsPerAddress : null },
    'client connections bounded by the open file limit');
  // One name per instance in the task leases: each per-shard task runs on one instance at a time.
  const holder = leaseHolder();
  const sweeper = new Sweeper(inventory.as('sweeper').all(), ctx.metrics, config.sweepIntervalMs, ctx.log, { holder, ms: config.workerLeaseMs });
  const workers = new Workers(ctx, ctx.log, holder);
  const metricsListener = new MetricsListener(ctx, ctx.log);
  await ctx.room.store.ready();
  ctx.room.start();
  await seatFeed.start();
  sharded?.start();
  return {
    ctx,
    app,
    sweeper,
    workers,
    warm: () => ctx.warmup!.run(ctx, (url, coding) => app.inject({ method: 'GET', url, headers: { 'accept-encoding': coding }, remoteAddress: WARMUP_ADDRESS }), config.warmupMs),
    async listenMetrics() {
      return config.metricsPort === null ? null : metricsListener.listen(config.host, config.metricsPort);
    },
    async close() {
      await sweeper.pause();
      await metricsListener.close();
      // Open streams would keep the server from closing.
      ctx.seatStreams.stop();
      await seatFeed.stop();
      // Node closes idle keep-alive connections once, when close starts; one that
      // finishes its request afterwards would hold the close for the keep-alive
      // timeout (72 s). Keep closing the idle ones until the server is down.
      const closing = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(closing);
      }
      await ctx.awaitedEvents.close();
      await workers.stop();
      await ctx.room.close();
      await ctx.rateLimits.close();
      await ctx.holdTally.flush(inventory.as('hold_tally')).catch(() => {});
      await sharded?.stop();
      await Promise.all(shardBases.map((s) => s.db.close()));
      if (!opts.db) await base.close();
    },
  };
}
