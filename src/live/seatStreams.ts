// The live seat map stream (Server-Sent Events): a snapshot first, then deltas;
// a Last-Event-ID within the show's buffer resumes with deltas, anything else gets
// a fresh snapshot. Viewers are bounded per instance and per client address; one
// that cannot keep up is dropped (it resumes). Transport-free: a sink writes the
// bytes (./eventStream.ts over an HTTP response).
import { setTimeout as sleep } from 'node:timers/promises';
import type { LiveMapSettings } from '../config.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import type { Delta } from './deltas.js';
import type { LiveMetrics } from './liveMetrics.js';
import type { SeatFeed } from './seatFeed.js';
import { HEARTBEAT, SnapshotEvents, deltaEvent, retryEvent, sectionsOf, type MapForStream, type SectionedLayout } from './events.js';
import { AddressCounts } from './addressCounts.js';
import type { StreamSink } from './streamSink.js';

/** Where the stream reads a show's hall (its sections) and its map (app/hallCatalog.ts, app/seatMaps.ts). */
export interface ShowHalls {
  forShow(showId: string): Promise<SectionedLayout | null>;
}
export interface ShowMaps {
  get(showId: string): { answer: Promise<MapForStream | null> };
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

export class SeatStreams {
  private readonly byShow = new Map<string, Set<Viewer>>();
  /** Every viewer accepted and not yet closed, attached to its show or still starting. */
  private readonly accepted = new Set<Viewer>();
  private stopped = false;
  private readonly perAddress = new AddressCounts();
  private readonly heartbeat: NodeJS.Timeout;
  /** The heartbeat round that beats next, and the round the next viewer joins. */
  private beatRound = 0;
  private joinRound = 0;
  private readonly snapshots = new SnapshotEvents();
  private readonly retry: Buffer;
  /** Per show: deltas waiting for the next fan-out pass, and whether a pass is under way. */
  private readonly pumps = new Map<string, { queue: Delta[]; running: boolean }>();
  private readonly unlisten: () => void;

  constructor(
    private readonly feed: SeatFeed,
    private readonly seatMaps: ShowMaps,
    private readonly halls: ShowHalls,
    private readonly settings: LiveMapSettings,
    private readonly metrics: LiveMetrics,
  ) {
    this.unlisten = feed.listen({ deltas: (showId, ds) => this.deliver(showId, ds), resync: () => this.endAll('resync') });
    this.retry = retryEvent(settings.retryMs);
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
    const fromAddress = address === null ? 0 : this.perAddress.of(address);
    if (fromAddress >= this.settings.maxPerAddress) {
      this.metrics.refusedPerAddress.inc();
      throw new DomainError('OVERLOADED', `this address has its maximum of ${this.settings.maxPerAddress} open seat map streams; close one, or try again shortly`, { retry_after: 5 });
    }
    if (address !== null) this.perAddress.add(address);
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

  /**
   * Ends every stream of one show, those still starting too, as a resync: the show
   * moved to another shard, whose feed numbers its versions on from the source's last
   * (src/db/showMove.ts) but is read by this instance side by side with the source's,
   * so a viewer reconnects and starts from a snapshot read on the new shard.
   */
  endShow(showId: string): void {
    for (const v of [...this.accepted]) if (v.showId === showId) this.drop(v, 'resync');
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
      const snapshot = this.snapshots.of(v, map);
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
        const e = deltaEvent(deltas[k]!, v);
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
    if (v.address !== null) this.perAddress.remove(v.address);
    const set = this.byShow.get(v.showId);
    if (set?.delete(v) && set.size === 0) this.byShow.delete(v.showId);
  }
}
