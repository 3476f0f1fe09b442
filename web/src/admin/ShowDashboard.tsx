// A show's live dashboard: seats by state, hold-to-booking conversion, the 409 rate,
// refunds after expired holds, the waiting room, and double sales (must stay 0) —
// read every 1.5 s and charted as the sale goes. After a sell-out, the people still in the
// queue are shown as what they are: told it is sold out, not waiting for seats.
import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { QueueAdminView, Show, ShowStats } from '../api/types';
import { dateTime } from '../format';
import { QueueControls } from './QueueControls';
import { CancelShow } from './CancelShow';
import { TimeChart } from './TimeChart';
import { usePolling } from './usePolling';

const EVERY_MS = 1500;
const KEEP = 400;

interface Sample {
  t: number; available: number; held: number; booked: number; conversion: number | null; conflicts: number | null;
  waiting: number | null; rate: number | null;
}

const percent = (part: number, whole: number): number | null => (whole > 0 ? (100 * part) / whole : null);
const pct = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} %`);
const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function Tile({ label, value, detail, tone }: { label: string; value: string; detail?: string; tone?: 'good' | 'bad' }) {
  return (
    <div class={`tile${tone ? ` tile-${tone}` : ''}`}>
      <dt>{label}</dt>
      <dd><span class="tile-value">{value}</span>{detail && <span class="tile-detail">{detail}</span>}</dd>
    </div>
  );
}

export function ShowDashboard() {
  const { params } = useRoute();
  const showId = params.id!;
  const [show, setShow] = useState<Show | null>(null);
  const [stats, setStats] = useState<ShowStats | null>(null);
  const [queue, setQueue] = useState<QueueAdminView | null>(null);
  const [samples, setSamples] = useState<Sample[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [updated, setUpdated] = useState<string>('');

  usePolling(async () => {
    try {
      const s = show ?? await api.show(showId);
      if (!show) setShow(s);
      const [st, q] = await Promise.all([api.admin.stats(showId), s.waiting_room ? api.admin.queue(showId) : Promise.resolve(null)]);
      setStats(st); setQueue(q); setError(null);
      const now = Date.now();
      setUpdated(new Date(now).toLocaleTimeString());
      setSamples((old) => [...old.slice(-(KEEP - 1)), {
        t: now / 1000, ...st.seats,
        conversion: percent(st.bookings_confirmed, st.holds_created), conflicts: percent(st.hold_conflicts, st.holds_created),
        waiting: q?.waiting ?? null, rate: q?.admit_rate_per_minute ?? null,
      }]);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 404 ? 'There is no such show.' : 'The figures could not be read; trying again.');
      throw e;
    }
  }, EVERY_MS, showId);

  if (!show || !stats) {
    return <section class="admin"><p><a href="/admin">← Operators</a></p>{error ? <p role="alert" class="error">{error}</p> : <p>Loading…</p>}</section>;
  }
  const { available, held, booked } = stats.seats;
  const conversion = percent(stats.bookings_confirmed, stats.holds_created);
  const conflictRate = percent(stats.hold_conflicts, stats.holds_created);
  const expiredRefunds = stats.refunds_by_reason?.seats_lost ?? 0;
  const seats = available + held + booked;
  const ofHall = (n: number) => `${pct(percent(n, seats))} of ${seats.toLocaleString()}`;
  const times = samples.map((s) => s.t);
  const last = samples.at(-1);

  return (
    <section class="admin dashboard">
      <p><a href="/admin">← Operators</a> · <a href={`/admin/shows/${encodeURIComponent(showId)}/edit`}>Edit show</a></p>
      <h1>{show.event.title}</h1>
      <p>{show.venue.name}, {show.hall.name} · {dateTime(show.starts_at, show.venue.timezone)}
        {show.waiting_room ? ' · waiting room' : ''}</p>
      {error && <p role="alert" class="error">{error}</p>}

      <div class={`double-sold ${stats.double_sold === 0 ? 'ok' : 'alarm'}`} role="status" aria-label={`Double-sold seats: ${stats.double_sold}`}>
        <span class="double-sold-label">Double-sold seats</span>
        <span class="double-sold-value">{stats.double_sold}</span>
        <span>{stats.double_sold === 0 ? 'No seat sold twice.' : 'Seats were sold twice: investigate now.'}</span>
      </div>

      <h2 id="figures-heading">Now <span class="updated">(updated {updated})</span></h2>
      <dl class="tiles" aria-labelledby="figures-heading">
        <Tile label="Available" value={available.toLocaleString()} detail={ofHall(available)} />
        <Tile label="Held" value={held.toLocaleString()} detail={ofHall(held)} />
        <Tile label="Booked" value={booked.toLocaleString()} detail={ofHall(booked)} />
        <Tile label="Hold-to-booking conversion" value={pct(conversion)} detail={`${count(stats.bookings_confirmed, 'booking', 'bookings')} / ${count(stats.holds_created, 'hold', 'holds')}`} />
        <Tile label="409 rate" value={pct(conflictRate)} detail={`${count(stats.hold_conflicts, 'conflict', 'conflicts')} / ${count(stats.holds_created, 'hold', 'holds')}`} />
        <Tile label="Refunds after expired holds" value={expiredRefunds.toLocaleString()} detail={`${count(stats.refunds, 'refund', 'refunds')} in all`} tone={expiredRefunds ? 'bad' : undefined} />
        {stats.refunds_failed ? <Tile label="Refunds refused by the provider" value={stats.refunds_failed.toLocaleString()} tone="bad" /> : null}
        {queue && <Tile label={queue.sold_out ? 'Waiting, told it is sold out' : 'Queue depth'} value={queue.waiting.toLocaleString()} />}
        {queue && <Tile label="Admission rate" value={`${Math.round(queue.admit_rate_per_minute ?? 0).toLocaleString()} / min`} />}
      </dl>

      <div class="charts">
        {/* Held and booked on their own scale: beside a stadium's 60,000 available seats they
            were a flat line at the bottom. Available is in its tile. */}
        <TimeChart title="Held and booked seats" times={times} unit=""
          summary={`now ${held} held, ${booked} booked, ${available} available`}
          series={[
            { label: 'Held', colour: '#b26a00', values: samples.map((s) => s.held) },
            { label: 'Booked', colour: '#5f6368', values: samples.map((s) => s.booked) },
          ]} />
        <TimeChart title="Conversion and 409 rate" times={times} unit=" %" yMax={100}
          summary={`now conversion ${pct(conversion)}, 409 rate ${pct(conflictRate)}`}
          series={[
            { label: 'Hold-to-booking conversion', colour: '#1e6fd9', values: samples.map((s) => s.conversion) },
            { label: '409 rate', colour: '#b3261e', values: samples.map((s) => s.conflicts) },
          ]} />
        {show.waiting_room && (
          <TimeChart title="Waiting room" times={times} unit=""
            summary={`now ${last?.waiting ?? 0} waiting${queue?.sold_out ? ' (told it is sold out)' : ''}, ${Math.round(last?.rate ?? 0)} admitted a minute`}
            series={[
              { label: 'Waiting', colour: '#6a3fb5', values: samples.map((s) => s.waiting) },
              { label: 'Admitted a minute', colour: '#00747a', values: samples.map((s) => s.rate) },
            ]} />
        )}
      </div>

      {show.waiting_room && <QueueControls showId={showId} view={queue} onChange={setQueue} />}
      <CancelShow show={show} />
    </section>
  );
}
