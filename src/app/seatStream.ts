// The live seat map stream (Server-Sent Events): a snapshot first, then deltas;
// a Last-Event-ID within the show's buffer resumes with deltas, anything else gets
// a fresh snapshot. Viewers are bounded per instance and per client address; one
// that cannot keep up is dropped (it resumes). Transport-free: the route hands in a
// sink that writes bytes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LiveMapSettings } from '../config.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import type { Delta } from '../live/deltas.js';
import type { LiveMetrics } from '../live/liveMetrics.js';
import type { SeatFeed } from '../live/seatFeed.js';
import type { HallCatalog, HallLayout } from './hallCatalog.js';
import type { SeatMapAnswer, SeatMaps } from './seatMaps.js';
import { seatsBySection } from '../domain/seatSections.js';

export interface StreamSink {
  /**
   * Writes whole events (UTF-8, shared by every viewer they go to: never changed);
   * false when the viewer cannot take more (too slow, or gone).
   */
  write(events: Buffer): boolean;
  /** Makes ready, off the event loop, what a big event will be sent as (a compressed snapshot); before write. */
  prepare?(events: Buffer): Promise<void>;
  /**
   * Keeps an idle stream open: writes `heartbeat` (a comment) unless bytes are still
   * waiting to be sent; false when the viewer has taken none of them for too long
   * (it stopped reading).
   */
  beat(heartbeat: Buffer): boolean;
  /** Ends the stream (the connection closes). */
  end(): void;
}

interface Viewer {
  showId: string;
  section: string | null;
  /** The section's seats, when the viewer asked for one section. */
  inSection: Set<string> | null;
  sink: StreamSink | null;
  /** The client address the viewer counts against (null: not counted, e.g. exempt). */
  address: string | null;
  /** The show version the viewer's map is at. */
  last: number;
  closed: boolean;
  /** Which of the heartbeat's rounds beats this viewer (0 … BEAT_ROUNDS - 1). */
  beatRound: number;
}

/** Who opens a stream: its address (`req.ip`), and whether it is exempt from the per-address bound. */
export interface StreamClient {
  address: string;
  exempt: boolean;
}

/** What a stream's connection needs once it has been accepted. */
export interface SeatStream {
  start(sink: StreamSink): Promise<void>;
  close(): void;
}

/**
 * Viewers written to per event loop turn when a delta fans out. Measured against
 * turns of 8 and 16 ms (3,000-8,000 viewers): long turns left PostgreSQL idle
 * while they ran (the holds' and the feed's queries wait for the turn to end), and
 * with 10,000 viewers both the hold answers and the delivery were worse
 * (docs/live-map.md).
 */
export const FANOUT_SLICE = 500;

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * The heartbeat's period is cut into this many rounds, each beating its share of the
 * viewers: writing to every open stream at once (a syscall each, a compression each
 * for gzip viewers) held the event loop for a hundred milliseconds and more with
 * 5,000 viewers on two busy cores, and /healthz and the purchase path waited behind it.
 */
const BEAT_ROUNDS = 10;

/** The events a viewer gets in one fan-out pass (the pass's deltas from one of them on, for one section), built once per pass. */
interface Run {
  bytes: Buffer | null;
  events: number;
}

const sectionSeats = new WeakMap<HallLayout, Map<string, Set<string>>>();

/** The seat ids of each section of a hall (empty for a hall without sections), grouped once per layout. */
function sectionsOf(layout: HallLayout): Map<string, Set<string>> {
  let m = sectionSeats.get(layout);
  if (!m) {
    m = new Map([...seatsBySection(layout.seats)].map(([section, seats]) => [section, new Set(seats.map((s) => s.seat_id))]));
    sectionSeats.set(layout, m);
  }
  return m;
}

export class SeatStreams {
  private readonly byShow = new Map<string, Set<Viewer>>();
  /** Every viewer accepted and not yet closed, attached to its show or still starting. */
  private readonly accepted = new Set<Viewer>();
  private stopped = false;
  /** Open streams by client address; an address leaves the map with its last stream. */
  private readonly perAddress = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  /** The heartbeat round that beats next, and the round the next viewer joins. */
  private beatRound = 0;
  private joinRound = 0;
  /** Event bytes, built once per delta and section ('' for the whole show): null when the section is untouched. */
  private readonly deltaEvents = new WeakMap<Delta, Map<string, Buffer | null>>();
  private readonly snapshots = new Map<string, { etag: string; bytes: Buffer }>();
  private readonly retry: Buffer;
  /** Per show: deltas waiting for the next fan-out pass, and whether a pass is under way. */
  private readonly pumps = new Map<string, { queue: Delta[]; running: boolean }>();
  private readonly unlisten: () => void;

  constructor(
    private readonly feed: SeatFeed,
    private readonly seatMaps: SeatMaps,
    private readonly halls: HallCatalog,
    private readonly settings: LiveMapSettings,
    private readonly metrics: LiveMetrics,
  ) {
    this.unlisten = feed.listen({ deltas: (showId, ds) => this.deliver(showId, ds), resync: () => this.endAll('resync') });
    this.retry = Buffer.from(`retry: ${settings.retryMs}\n\n`);
    this.heartbeat = setInterval(() => this.beat(), Math.max(1, Math.floor(settings.heartbeatMs / BEAT_ROUNDS)));
    this.heartbeat.unref();
  }

  get viewerCount(): number {
    return this.accepted.size;
  }

  /** Client addresses with at least one counted stream open. */
  get addressesCounted(): number {
    return this.perAddress.size;
  }

  /**
   * Accepts a viewer of a show (404 unknown show, 400 unknown section, 503 past the
   * instance's or the client's bound), before any byte is sent. Without `client`
   * (in-process callers) only the instance's bound applies.
   */
  async open(o: { showId: string; section?: string; lastEventId?: string; client?: StreamClient }): Promise<SeatStream> {
    const layout = await this.halls.forShow(o.showId);
    if (!layout) throw notFound('show');
    const section = o.section ?? null;
    const inSection = section === null ? null : sectionsOf(layout).get(section);
    if (inSection === undefined) {
      throw validationFailed(`the show's hall has no section "${section}"`, [{ path: 'querystring:/section', message: 'no such section in this hall' }]);
    }
    if (this.stopped) throw new DomainError('NOT_READY', 'this instance is shutting down; open the stream again (on another instance)');
    if (this.accepted.size >= this.settings.maxViewers) {
      this.metrics.refused.inc();
      throw new DomainError('OVERLOADED', `this instance has its maximum of ${this.settings.maxViewers} seat map viewers; try again shortly (or another instance)`, { retry_after: 5 });
    }
    const address = o.client && !o.client.exempt ? o.client.address : null;
    const fromAddress = address === null ? 0 : (this.perAddress.get(address) ?? 0);
    if (fromAddress >= this.settings.maxPerAddress) {
      this.metrics.refusedPerAddress.inc();
      throw new DomainError('OVERLOADED', `this address has its maximum of ${this.settings.maxPerAddress} open seat map streams; close one, or try again shortly`, { retry_after: 5 });
    }
    if (address !== null) this.perAddress.set(address, fromAddress + 1);
    const v: Viewer = { showId: o.showId, section, inSection, sink: null, address, last: -1, closed: false, beatRound: this.joinRound };
    this.joinRound = (this.joinRound + 1) % BEAT_ROUNDS;
    this.accepted.add(v);
    return {
      start: (sink) => this.start(v, sink, o.lastEventId),
      close: () => this.close(v),
    };
  }

  /** Ends every stream, those still starting too (a resync, or shutdown). */
  endAll(reason: 'resync' | 'shutdown'): void {
    for (const v of [...this.accepted]) this.drop(v, reason);
  }

  /** Ends every stream and refuses new ones (shutdown): an open stream would keep the server from closing. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    this.unlisten();
    this.endAll('shutdown');
  }

  private async start(v: Viewer, sink: StreamSink, lastEventId: string | undefined): Promise<void> {
    v.sink = sink;
    // Ended before its connection was ready (shutdown, a resync): it ends now.
    if (v.closed) return sink.end();
    if (!sink.write(this.retry)) return this.drop(v, 'slow');
    const resumeFrom = lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : null;
    if (resumeFrom !== null) {
      let missed = this.feed.buffer(v.showId)?.since(resumeFrom);
      // An id newer than this instance has read (the viewer came from a faster
      // instance, or a map read published it): catch up once before giving up.
      if (!missed && resumeFrom > (this.feed.buffer(v.showId)?.last ?? -1)) {
        await this.feed.catchUp();
        if (v.closed) return;
        missed = this.feed.buffer(v.showId)?.since(resumeFrom);
      }
      if (missed) {
        v.last = resumeFrom;
        return this.attach(v, missed);
      }
    }
    // A map from the 1-2 s cache may be older than this instance's buffer reaches
    // back: then the deltas between would be missing, so wait for a fresher map.
    for (let attempt = 0; attempt < 5; attempt++) {
      const map = await this.seatMaps.get(v.showId).answer;
      if (v.closed) return;
      if (!map) return this.drop(v, 'gone');
      const snapshot = this.snapshotEvent(v, map);
      if (sink.prepare) {
        await sink.prepare(snapshot);
        if (v.closed) return;
      }
      const buffer = this.feed.buffer(v.showId);
      const after = buffer?.last != null && buffer.last > map.version ? buffer.since(map.version) : [];
      if (after) {
        if (!sink.write(snapshot)) return this.drop(v, 'slow');
        v.last = map.version;
        return this.attach(v, after);
      }
      await sleep(250);
    }
    this.drop(v, 'resync');
  }

  /** Sends the deltas the viewer lacks, then follows the show live (no await between: nothing is missed). */
  private attach(v: Viewer, missed: readonly Delta[]): void {
    if (v.closed) return;
    let set = this.byShow.get(v.showId);
    if (!set) this.byShow.set(v.showId, (set = new Set()));
    set.add(v);
    const sent = this.send(v, missed, new Map());
    if (sent) this.metrics.deltasSent.inc(sent);
  }

  /**
   * Hands deltas to the show's viewers, FANOUT_SLICE viewers per event loop turn, so
   * thousands of viewers do not hold the loop (and every hold request) for one long
   * turn. One pass at a time per show: deltas arriving during a pass wait for the
   * next, so every viewer gets them in version order, and a viewer gets all the
   * deltas of a pass in one write (the same bytes as every viewer at its version).
   */
  private deliver(showId: string, deltas: readonly Delta[]): void {
    let pump = this.pumps.get(showId);
    if (!pump) this.pumps.set(showId, (pump = { queue: [], running: false }));
    pump.queue.push(...deltas);
    if (!pump.running) this.pass(showId, pump);
  }

  private pass(showId: string, pump: { queue: Delta[]; running: boolean }): void {
    pump.running = true;
    const deltas = pump.queue;
    pump.queue = [];
    const viewers = [...(this.byShow.get(showId) ?? [])];
    const runs = new Map<string, Run>();
    let i = 0;
    const step = () => {
      let sent = 0;
      for (const end = Math.min(viewers.length, i + FANOUT_SLICE); i < end; i++) sent += this.send(viewers[i]!, deltas, runs);
      if (sent) this.metrics.deltasSent.inc(sent);
      if (i < viewers.length) return void setImmediate(step);
      if (pump.queue.length) return this.pass(showId, pump);
      this.pumps.delete(showId);
    };
    step();
  }

  /** Writes the deltas after the viewer's version (one write); how many delta events that was. */
  private send(v: Viewer, deltas: readonly Delta[], runs: Map<string, Run>): number {
    if (v.closed) return 0;
    let from = 0;
    while (from < deltas.length && deltas[from]!.version <= v.last) from++;
    if (from === deltas.length) return 0;
    v.last = deltas.at(-1)!.version;
    const run = this.runOf(deltas, from, v, runs);
    if (run.bytes === null) return 0;
    if (!v.sink!.write(run.bytes)) this.drop(v, 'slow');
    return run.events;
  }

  /** The events of `deltas` from `from` on that the viewer's section (or whole show) gets, joined once per pass. */
  private runOf(deltas: readonly Delta[], from: number, v: Viewer, runs: Map<string, Run>): Run {
    const key = `${from}\u0000${v.section ?? ''}`;
    let run = runs.get(key);
    if (!run) {
      const events: Buffer[] = [];
      for (let k = from; k < deltas.length; k++) {
        const e = this.deltaEvent(deltas[k]!, v);
        if (e) events.push(e);
      }
      run = { bytes: events.length === 0 ? null : events.length === 1 ? events[0]! : Buffer.concat(events), events: events.length };
      runs.set(key, run);
    }
    return run;
  }

  /** One round of the heartbeat: every viewer is beaten once a period, a tenth of them at a time. */
  private beat(): void {
    const round = this.beatRound;
    this.beatRound = (round + 1) % BEAT_ROUNDS;
    for (const set of this.byShow.values()) {
      for (const v of set) if (v.beatRound === round && !v.sink!.beat(HEARTBEAT)) this.drop(v, 'slow');
    }
  }

  private deltaEvent(d: Delta, v: Viewer): Buffer | null {
    let events = this.deltaEvents.get(d);
    if (!events) this.deltaEvents.set(d, (events = new Map()));
    const key = v.section ?? '';
    let event = events.get(key);
    if (event === undefined) {
      const seats = v.inSection;
      const changes = seats ? d.changes.filter((c) => seats.has(c.seat)) : d.changes;
      event = changes.length === 0 ? null : Buffer.from(`id: ${d.version}\nevent: delta\ndata: ${JSON.stringify({ version: d.version, changes })}\n\n`);
      events.set(key, event);
    }
    return event;
  }

  private snapshotEvent(v: Viewer, map: SeatMapAnswer): Buffer {
    const key = `${v.showId}\u0000${v.section ?? ''}`;
    const cached = this.snapshots.get(key);
    if (cached?.etag === map.etag) return cached.bytes;
    // The section's part of the map is built once per map refresh (null only for a
    // section the hall lacks, which open() refused already).
    const part = v.section === null ? map.body : map.section(v.section)?.bytes;
    if (!part) throw new Error(`show ${v.showId}: the map has no section ${v.section}`);
    // The map's JSON is one line: it stands as the data line as it is.
    const bytes = Buffer.concat([Buffer.from(`id: ${map.version}\nevent: snapshot\ndata: `), part, Buffer.from('\n\n')]);
    if (this.snapshots.size > 1000) this.snapshots.clear();
    this.snapshots.set(key, { etag: map.etag, bytes });
    return bytes;
  }

  private drop(v: Viewer, reason: 'slow' | 'resync' | 'shutdown' | 'gone'): void {
    if (v.closed) return;
    if (reason !== 'gone') this.metrics.dropped.inc({ reason });
    v.sink?.end();
    this.close(v);
  }

  private close(v: Viewer): void {
    if (v.closed) return;
    v.closed = true;
    this.accepted.delete(v);
    if (v.address !== null) {
      const left = this.perAddress.get(v.address)! - 1;
      if (left > 0) this.perAddress.set(v.address, left);
      else this.perAddress.delete(v.address);
    }
    const set = this.byShow.get(v.showId);
    if (set?.delete(v) && set.size === 0) this.byShow.delete(v.showId);
  }
}
