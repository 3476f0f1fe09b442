// Environment parsed and validated once at boot, then frozen.

/** When a hold for seats known taken is refused from memory (src/app/knownTaken.ts). */
export type KnownTakenMode = 'under-load' | 'always' | 'off';

/** The bundled simulator's keys: public, so they are only ever good for the simulator. */
export const SIMULATOR_SECRET_KEY = 'sk_test_sim';
export const SIMULATOR_WEBHOOK_SECRET = 'whsec_sim';

export interface Config {
  host: string;
  port: number;
  /**
   * Connections the kernel may hold for the API before it accepts them (listen's
   * backlog; the kernel caps it at net.core.somaxconn). Past it a new connection's
   * SYN is dropped and the client retries a second later: an on-sale's burst of
   * new connections overflowed Node's default of 511.
   */
  listenBacklog: number;
  /**
   * Open connections per client address (CONNECTIONS_MAX_PER_ADDRESS); beyond, the
   * new one is answered 503 and closed. Not counted behind a proxy (TRUST_PROXY),
   * where every connection comes from the proxy, nor for RATE_LIMIT_EXEMPT addresses.
   */
  connectionsPerAddress: number;
  databaseUrl: string | null;
  /**
   * SHARD_URLS (`name=postgres://…,name=postgres://…`): where shows' inventories live,
   * one shard per show; DATABASE_URL is then the control database. Empty: the one
   * database serves everything.
   */
  shards: readonly { name: string; url: string }[];
  /** How often an instance reads the show placements it has cached (PLACEMENT_REFRESH_MS): a moved show is followed within it. */
  placementRefreshMs: number;
  dataDir: string;
  redisUrl: string | null;
  /**
   * REDIS_CLUSTER_NODES (`host:port,…`, seed nodes): the waiting room and the rate
   * limits run on this Redis Cluster instead of REDIS_URL (setting both is refused).
   * Every key of one show shares a hash slot (`{show_id}`); see docs/waiting-room.md.
   */
  redisClusterNodes: readonly RedisNode[] | null;
  poolSize: number;
  /** Statements with parameters go as named prepared statements (DB_PREPARED_STATEMENTS=0: unnamed, for poolers that cannot keep them). */
  preparedStatements: boolean;
  /**
   * How long PostgreSQL may keep a caller waiting (src/db/client.ts DbBounds): for a
   * connection, for a request path statement, for a background transaction's statement.
   */
  dbBounds: { connectMs: number; queueMs: number; statementMs: number; backgroundStatementMs: number };
  adminEmail: string | null;
  adminPassword: string | null;
  tokenSecret: string | null;
  tokenTtlSeconds: number;
  seatMapCacheMs: number;
  /**
   * KNOWN_TAKEN_REFUSALS: when a hold for seats this instance knows are taken is
   * refused without the database (src/app/knownTaken.ts): `under-load` (while holds
   * queue for the pool), `always` (one instance: nothing else frees its holds'
   * seats), `off`.
   */
  knownTaken: KnownTakenMode;
  /**
   * WARMUP_MS: how long `serve` may spend warming up before /readyz says ready
   * (the pool's connections, the hot statements prepared on them, the seat maps of
   * shows on sale, the hot JS paths). Past it the instance serves anyway and says so
   * in a log line; 0 skips the warm-up.
   */
  warmupMs: number;
  sweepIntervalMs: number;
  seedDemo: boolean;
  /** The built web app (index.html and assets) served at `/`; null: dist/web beside the package. */
  webRoot: string | null;
  logLevel: string;
  /** Real Stripe or a running simulator; null: `npm start` runs the bundled simulator. */
  stripeSecretKey: string | null;
  stripeApiUrl: string | null;
  stripeWebhookSecret: string;
  paysimPort: number;
  /** Where the bundled simulator keeps its books; null: in its memory only. */
  paysimDataDir: string | null;
  /** How long a booking request waits for the provider's first answer. */
  paymentTimeoutMs: number;
  /** First backoff of the reconciler; doubles per check, capped at a minute. */
  reconcileBaseSeconds: number;
  workerIntervalMs: number;
  /** The longest pause of a background task whose passes find nothing to do (src/loop.ts). */
  workerIdleMaxMs: number;
  /** How long a background task's lease on a database lasts unless renewed (src/workers/taskLease.ts). */
  workerLeaseMs: number;
  ticketSigningJwk: string | null;
  /** When set, /metrics needs `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | null;
  /** When set, /metrics is served only on this port (on `host`), not on the API's. */
  metricsPort: number | null;
  /** Fastify's trustProxy: true, a hop count, or addresses/CIDRs of trusted proxies; false reads the socket's address. */
  trustProxy: boolean | number | string;
  /** Addresses or CIDR ranges never answered 429 (load tests, rehearsals). */
  rateLimitExempt: string[];
  /** Prefix of the rate limiters' Redis keys, so several deployments can share one Redis. */
  rateLimitPrefix: string;
  rateLimits: RateLimitSettings;
  /** Stored Idempotency-Key answers older than this are forgotten (and swept). */
  idempotencyTtlHours: number;
  /** BOXOFFICE_SYNTHETIC_BUYERS=1: POST /v1/admin/synthetic-buyers exists (rehearsals, load tests); otherwise it is a 404. */
  syntheticBuyers: boolean;
  waitingRoom: WaitingRoomSettings;
  /** The purchase path's adaptive concurrency limit per instance (holds and bookings each). */
  purchaseConcurrency: { initial: number; min: number; max: number; bookingMin: number; holdQueue?: { slots: number; waitMs: number } };
  liveMap: LiveMapSettings;
}

export interface RedisNode {
  host: string;
  port: number;
}

/** The seat change feed and the seat map stream (docs/live-map.md). */
export interface LiveMapSettings {
  /** How often each instance publishes committed seat changes and reads the published ones. */
  feedIntervalMs: number;
  /** Published changes are kept this long (in the database) before they are deleted. */
  feedRetentionSeconds: number;
  /** Deltas kept in memory per show for Last-Event-ID resumes. */
  bufferDeltas: number;
  /** A comment line is sent to every viewer this often, so proxies keep the stream open. */
  heartbeatMs: number;
  /** The `retry:` the stream asks a disconnected client to wait before reconnecting. */
  retryMs: number;
  /**
   * Open streams per instance; beyond, 503 OVERLOADED with Retry-After. The service
   * takes fewer when its open file limit is lower (src/live/streamCapacity.ts).
   */
  maxViewers: number;
  /** Open streams per client address (`req.ip`; RATE_LIMIT_EXEMPT addresses are not counted); beyond, 503 OVERLOADED. */
  maxPerAddress: number;
  /** A viewer whose unsent bytes exceed this (besides its snapshot) is dropped; it may resume. */
  maxQueuedBytes: number;
  /** A viewer with bytes unsent that takes none of them for this long has stopped reading: it is dropped (checked at each heartbeat). */
  stallMs: number;
}

export interface WaitingRoomSettings {
  /** The admission rule's rate per show (operators may cap it lower, or pause it). */
  admitPerMinute: number;
  /** A served position that makes no hold within this lapses; its slot goes to the next. */
  graceSeconds: number;
  tickMs: number;
  /** Queue store unreachable: true admits everyone who asks (the purchase path's limits still apply); false answers 503. */
  failOpen: boolean;
  /** Prefix of the queue's Redis keys, so several deployments can share one Redis. */
  prefix: string;
  /** How often the admission controller sets the rate from measured signals; 0: a fixed rate (admitPerMinute). */
  controlMs: number;
  /** The controller never admits slower than this (per minute), so a room never stalls for good. */
  minAdmitPerMinute: number;
  /** How stale the in-memory copy of a show's rules (waiting room, sale window) may get: up to twice this. */
  showRulesRefreshMs: number;
}

/** At most `points` requests per `seconds`, per key. */
export interface Rate {
  points: number;
  seconds: number;
}

export interface RateLimitSettings {
  signUpPerAddress: Rate;
  signInPerAddress: Rate;
  /**
   * Attempts one address may make on one account, counted before the password is
   * checked: a burst sent all at once is mostly refused before the lock after its
   * failures can take hold. Nobody else's attempts spend it.
   */
  signInPerAccountAddress: Rate;
  /**
   * Failed sign-ins for one account, from anywhere, per window; past them a
   * client that is itself failing for that account waits for the window's end.
   */
  signInFailuresPerAccount: Rate;
  /** Failed sign-ins in a row for one account from one address before each further failure locks that address out of it. */
  signInFreeFailures: number;
  /** The first lock; each further failure doubles it, up to the maximum. */
  signInLockSeconds: number;
  signInLockMaxSeconds: number;
  purchasePerAccount: Rate;
  purchasePerAddress: Rate;
  queueJoinPerAccount: Rate;
  queueJoinPerAddress: Rate;
}

/** An integer environment variable of at least `min`, or the fallback when unset. */
export function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function knownTakenMode(raw: string | undefined): KnownTakenMode {
  if (raw === undefined || raw === '') return 'under-load';
  if (raw === 'under-load' || raw === 'always' || raw === 'off') return raw;
  throw new Error(`KNOWN_TAKEN_REFUSALS must be under-load, always or off, got "${raw}"`);
}

/** A rate written `<points>/<seconds>`, e.g. `10/60`, or the fallback when unset. */
export function rate(env: NodeJS.ProcessEnv, name: string, fallback: Rate): Rate {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)\/(\d+)$/.exec(raw.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`${name} must look like <requests>/<seconds> (e.g. 10/60), got "${raw}"`);
  return { points: Number(m[1]), seconds: Number(m[2]) };
}

/** `host:port,host:port,…` (IPv6 hosts in brackets: `[::1]:7000`); null when unset. */
export function redisClusterNodes(raw: string | undefined): readonly RedisNode[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const nodes = raw.split(',').map((s) => s.trim()).filter(Boolean).map((spec) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(spec);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65_535) throw new Error(`REDIS_CLUSTER_NODES: "${spec}" is not host:port`);
    return Object.freeze({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
  });
  return Object.freeze(nodes);
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

export function rateLimitSettings(env: NodeJS.ProcessEnv): RateLimitSettings {
  const lock = int(env, 'RATE_LIMIT_SIGN_IN_LOCK_SECONDS', 2, 1);
  // It counted every attempt on an account, so anyone could spend it and lock the owner out: refuse it rather than ignore it.
  if (env.RATE_LIMIT_SIGN_IN_PER_ACCOUNT) {
    throw new Error('RATE_LIMIT_SIGN_IN_PER_ACCOUNT is no longer read: sign-in attempts are limited per address, failures per account with RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT');
  }
  return {
    signUpPerAddress: rate(env, 'RATE_LIMIT_SIGN_UP_PER_ADDRESS', { points: 20, seconds: 600 }),
    signInPerAddress: rate(env, 'RATE_LIMIT_SIGN_IN_PER_ADDRESS', { points: 60, seconds: 60 }),
    signInPerAccountAddress: rate(env, 'RATE_LIMIT_SIGN_IN_PER_ACCOUNT_ADDRESS', { points: 10, seconds: 60 }),
    signInFailuresPerAccount: rate(env, 'RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT', { points: 100, seconds: 600 }),
    signInFreeFailures: int(env, 'RATE_LIMIT_SIGN_IN_FREE_FAILURES', 5, 0),
    signInLockSeconds: lock,
    signInLockMaxSeconds: int(env, 'RATE_LIMIT_SIGN_IN_LOCK_MAX_SECONDS', Math.max(900, lock), lock),
    purchasePerAccount: rate(env, 'RATE_LIMIT_PURCHASE_PER_ACCOUNT', { points: 60, seconds: 60 }),
    purchasePerAddress: rate(env, 'RATE_LIMIT_PURCHASE_PER_ADDRESS', { points: 1200, seconds: 60 }),
    queueJoinPerAccount: rate(env, 'RATE_LIMIT_QUEUE_JOIN_PER_ACCOUNT', { points: 10, seconds: 60 }),
    queueJoinPerAddress: rate(env, 'RATE_LIMIT_QUEUE_JOIN_PER_ADDRESS', { points: 300, seconds: 60 }),
  };
}

/**
 * The purchase path's limit per instance. Its floor defaults to twice the database
 * pool: a limit below what the pool serves at once only idles connections (the pool
 * queues the rest itself), and in bench:overload a lower floor shed bursts of
 * admitted buyers with no gain in goodput.
 */
function purchaseConcurrency(env: NodeJS.ProcessEnv, poolSize: number): Config['purchaseConcurrency'] {
  const min = int(env, 'PURCHASE_CONCURRENCY_MIN', 2 * poolSize, 1);
  const max = int(env, 'PURCHASE_CONCURRENCY_MAX', 1000, min);
  const initial = int(env, 'PURCHASE_CONCURRENCY', Math.min(max, Math.max(min, 100)), 1);
  if (initial < min || initial > max) throw new Error('PURCHASE_CONCURRENCY must lie between PURCHASE_CONCURRENCY_MIN and PURCHASE_CONCURRENCY_MAX');
  // A booking spends most of its time waiting for the payment provider, on no
  // connection (two short statements around the charge): at the room's full rate
  // more bookings than twice the pool are in flight, so a floor of twice the pool
  // shed bookings the database had room for.
  const bookingMin = Math.min(max, Math.max(min, int(env, 'BOOKING_CONCURRENCY_MIN', 5 * poolSize, 1)));
  // A hold queues for the pool (DB_POOL_WAIT_MS bounds that wait): the holds' limit
  // keeps at least as many in flight as the pool serves within PURCHASE_QUEUE_WAIT_MS
  // at the pace it measures (src/waiting-room/concurrencyLimit.ts). 0: no such floor.
  const waitMs = int(env, 'PURCHASE_QUEUE_WAIT_MS', 500, 0);
  return Object.freeze({ initial, min, max, bookingMin, ...(waitMs > 0 ? { holdQueue: Object.freeze({ slots: poolSize, waitMs }) } : {}) });
}

/**
 * The database's bounds. The request path's must leave a 503 inside the contract's
 * 2 s when PostgreSQL stops answering: a connection wait plus one statement (and
 * its 300 ms client margin) is what a hold can spend before it is refused.
 */
const SHARD_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** SHARD_URLS: `name=postgres://…` entries, comma-separated; names unique, URLs postgres, DATABASE_URL required. */
export function shardUrls(raw: string | undefined, databaseUrl: string | null): { name: string; url: string }[] {
  if (!raw || raw.trim() === '') return [];
  if (!databaseUrl) throw new Error('SHARD_URLS needs DATABASE_URL: the control database (accounts, catalog, show placements) must be PostgreSQL');
  const shards: { name: string; url: string }[] = [];
  for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at).trim() : '';
    const url = at > 0 ? entry.slice(at + 1).trim() : '';
    if (!SHARD_NAME.test(name)) {
      throw new Error(`SHARD_URLS entries look like name=postgres://…, the name lower-case letters, digits, - and _ (at most 32); got "${entry.replace(/\/\/[^@/]*@/, '//…@')}"`);
    }
    if (!/^postgres(ql)?:\/\/./.test(url)) throw new Error(`SHARD_URLS: shard "${name}" needs a postgres:// URL`);
    if (shards.some((s) => s.name === name)) throw new Error(`SHARD_URLS names shard "${name}" twice`);
    if (shards.some((s) => s.url === url)) throw new Error(`SHARD_URLS: shard "${name}" has the same URL as another shard`);
    shards.push({ name, url });
  }
  return shards;
}

function dbBounds(env: NodeJS.ProcessEnv): { connectMs: number; queueMs: number; statementMs: number; backgroundStatementMs: number } {
  const connectMs = int(env, 'DB_CONNECT_TIMEOUT_MS', 1500, 50);
  const queueMs = int(env, 'DB_POOL_WAIT_MS', 3000, connectMs);
  const statementMs = int(env, 'DB_STATEMENT_TIMEOUT_MS', 1200, 50);
  const backgroundStatementMs = int(env, 'DB_BACKGROUND_STATEMENT_TIMEOUT_MS', 10_000, statementMs);
  return Object.freeze({ connectMs, queueMs, statementMs, backgroundStatementMs });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const adminEmail = env.BOXOFFICE_ADMIN_EMAIL || null;
  const adminPassword = env.BOXOFFICE_ADMIN_PASSWORD || null;
  if ((adminEmail === null) !== (adminPassword === null)) {
    throw new Error('set both BOXOFFICE_ADMIN_EMAIL and BOXOFFICE_ADMIN_PASSWORD, or neither');
  }
  if (adminPassword !== null && adminPassword.length < 8) throw new Error('BOXOFFICE_ADMIN_PASSWORD needs at least 8 characters');
  const metricsToken = env.METRICS_TOKEN || null;
  if (metricsToken !== null && metricsToken.length < 16) throw new Error('METRICS_TOKEN needs at least 16 characters');
  const metricsPort = env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0) : null;
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === int(env, 'PORT', 3000, 0)) throw new Error('METRICS_PORT must differ from PORT');
  const tokenSecret = env.BOXOFFICE_TOKEN_SECRET || null;
  if (tokenSecret !== null && tokenSecret.length < 32) throw new Error('BOXOFFICE_TOKEN_SECRET needs at least 32 characters');
  const stripeSecretKey = env.STRIPE_SECRET_KEY || null;
  const stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET || null;
  // The simulator's webhook secret is public: with real Stripe it would let anyone sign events.
  if (stripeSecretKey !== null && stripeSecretKey !== SIMULATOR_SECRET_KEY && (stripeWebhookSecret === null || stripeWebhookSecret === SIMULATOR_WEBHOOK_SECRET)) {
    throw new Error('STRIPE_SECRET_KEY names a real Stripe account: set STRIPE_WEBHOOK_SECRET to that endpoint\'s signing secret (the simulator\'s whsec_sim is public)');
  }
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES?.trim()) {
    throw new Error('set REDIS_URL or REDIS_CLUSTER_NODES, not both: the waiting room and the rate limits use one Redis');
  }
  // A brace in the prefix would become every key's hash tag: all shows on one cluster slot.
  if (/[{}]/.test(env.WAITING_ROOM_PREFIX ?? '') || /[{}]/.test(env.RATE_LIMIT_PREFIX ?? '')) {
    throw new Error('WAITING_ROOM_PREFIX and RATE_LIMIT_PREFIX may not contain { or }');
  }
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0),
    listenBacklog: int(env, 'LISTEN_BACKLOG', 4096, 1),
    connectionsPerAddress: int(env, 'CONNECTIONS_MAX_PER_ADDRESS', 1024, 1),
    databaseUrl: env.DATABASE_URL || null,
    shards: shardUrls(env.SHARD_URLS, env.DATABASE_URL || null),
    placementRefreshMs: int(env, 'PLACEMENT_REFRESH_MS', 1000, 50),
    dataDir: env.DATA_DIR || './data',
    redisUrl: env.REDIS_URL || null,
    redisClusterNodes: redisClusterNodes(env.REDIS_CLUSTER_NODES),
    poolSize: int(env, 'DB_POOL_SIZE', 20, 1),
    preparedStatements: env.DB_PREPARED_STATEMENTS !== '0',
    dbBounds: dbBounds(env),
    adminEmail,
    adminPassword,
    tokenSecret,
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 86_400, 60),
    seatMapCacheMs: int(env, 'SEATMAP_CACHE_MS', 1000, 0),
    knownTaken: knownTakenMode(env.KNOWN_TAKEN_REFUSALS),
    warmupMs: int(env, 'WARMUP_MS', 5000, 0),
    sweepIntervalMs: int(env, 'SWEEP_INTERVAL_MS', 500, 50),
    seedDemo: env.BOXOFFICE_DEMO !== '0',
    webRoot: env.WEB_ROOT || null,
    logLevel: env.LOG_LEVEL || 'info',
    stripeSecretKey,
    stripeApiUrl: env.STRIPE_API_URL || null,
    stripeWebhookSecret: stripeWebhookSecret ?? SIMULATOR_WEBHOOK_SECRET,
    paysimPort: int(env, 'PAYSIM_PORT', 12111, 0),
    // Beside the embedded database they pay for: the two are kept, moved and deleted together.
    paysimDataDir: env.PAYSIM_DATA_DIR || (env.DATABASE_URL ? null : `${env.DATA_DIR || './data'}/paysim`),
    paymentTimeoutMs: int(env, 'PAYMENT_TIMEOUT_MS', 10_000, 100),
    reconcileBaseSeconds: int(env, 'RECONCILE_BASE_MS', 1000, 10) / 1000,
    workerIntervalMs: int(env, 'WORKER_INTERVAL_MS', 250, 10),
    workerIdleMaxMs: int(env, 'WORKER_IDLE_MAX_MS', 2000, 10),
    workerLeaseMs: int(env, 'WORKER_LEASE_MS', 10_000, 100),
    ticketSigningJwk: env.TICKET_SIGNING_JWK || null,
    metricsToken,
    metricsPort,
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimitExempt: (env.RATE_LIMIT_EXEMPT ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    rateLimitPrefix: env.RATE_LIMIT_PREFIX || 'boxoffice:rl',
    rateLimits: rateLimitSettings(env),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1),
    syntheticBuyers: env.BOXOFFICE_SYNTHETIC_BUYERS === '1',
    waitingRoom: Object.freeze({
      admitPerMinute: int(env, 'WAITING_ROOM_ADMIT_PER_MINUTE', 600, 0),
      graceSeconds: int(env, 'WAITING_ROOM_GRACE_SECONDS', 120, 1),
      tickMs: int(env, 'WAITING_ROOM_TICK_MS', 250, 10),
      failOpen: env.WAITING_ROOM_FAIL_OPEN === '1',
      prefix: env.WAITING_ROOM_PREFIX || 'boxoffice:wr',
      showRulesRefreshMs: int(env, 'SHOW_RULES_REFRESH_MS', 1000, 10),
      controlMs: int(env, 'WAITING_ROOM_CONTROL_MS', 2000, 0),
      minAdmitPerMinute: int(env, 'WAITING_ROOM_MIN_ADMIT_PER_MINUTE', 6, 0),
    }),
    purchaseConcurrency: purchaseConcurrency(env, int(env, 'DB_POOL_SIZE', 20, 1)),
    liveMap: Object.freeze({
      feedIntervalMs: int(env, 'FEED_INTERVAL_MS', 100, 10),
      feedRetentionSeconds: int(env, 'FEED_RETENTION_SECONDS', 300, 10),
      bufferDeltas: int(env, 'STREAM_BUFFER_DELTAS', 600, 1),
      heartbeatMs: int(env, 'STREAM_HEARTBEAT_MS', 10_000, 10),
      retryMs: int(env, 'STREAM_RETRY_MS', 2000, 0),
      maxViewers: int(env, 'STREAM_MAX_VIEWERS', 20_000, 0),
      maxPerAddress: int(env, 'STREAM_MAX_PER_ADDRESS', 64, 1),
      maxQueuedBytes: int(env, 'STREAM_MAX_QUEUED_BYTES', 1 << 20, 1024),
      stallMs: int(env, 'STREAM_STALL_MS', 30_000, 100),
    }),
  });
}
