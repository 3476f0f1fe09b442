// Prometheus metrics of the change feed and the seat map stream of one instance.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class LiveMetrics {
  readonly published: Counter;
  readonly lag: Histogram;
  readonly gaps: Counter;
  readonly deltasSent: Counter;
  readonly dropped: Counter<'reason'>;
  readonly refused: Counter;
  readonly refusedPerAddress: Counter;

  constructor(registry: Registry, viewers: () => number) {
    const registers = [registry];
    this.published = new Counter({ name: 'boxoffice_seat_feed_published_changes_total', help: 'Seat changes this instance published (gave map versions)', registers });
    this.lag = new Histogram({
      name: 'boxoffice_seat_feed_lag_seconds',
      help: 'From a seat write to this instance reading it published (the oldest change of each batch read), by the database clock',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2, 5],
      registers,
    });
    this.gaps = new Counter({ name: 'boxoffice_seat_feed_gaps_total', help: 'Times this instance found published batches already deleted (it fell behind retention) and dropped its viewers to resync', registers });
    this.deltasSent = new Counter({ name: 'boxoffice_seat_stream_deltas_sent_total', help: 'Delta events written to seat map streams', registers });
    this.dropped = new Counter({ name: 'boxoffice_seat_stream_dropped_total', help: 'Seat map streams this instance ended, by reason (slow: the viewer did not read fast enough; resync; shutdown)', labelNames: ['reason'] as const, registers });
    this.refused = new Counter({ name: 'boxoffice_seat_stream_refused_total', help: 'Seat map streams refused with 503 OVERLOADED: the instance had its maximum of viewers', registers });
    this.refusedPerAddress = new Counter({ name: 'boxoffice_seat_stream_refused_per_address_total', help: 'Seat map streams refused with 503 OVERLOADED: the client address had its maximum of open streams (STREAM_MAX_PER_ADDRESS)', registers });
    new Gauge({ name: 'boxoffice_seat_stream_viewers', help: 'Open seat map streams on this instance', registers, collect() { this.set(viewers()); } });
  }
}
