// A show: its header, then (a big hall) its sections or (any hall) the live seat map of
// one section or the whole hall, the legend, and the buyer's selection with "Hold seats".
// A waiting-room show sends a buyer without an admission to the queue first (before the
// opening, its pre-queue). Before the sale opens the map is shown but takes no picks, and
// a countdown stands in for "Hold seats" until the opening opens the map.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { Hold, Seat, SectionSummary, Show } from '../api/types';
import { waitingRoom } from '../admission';
import { useSession } from '../components/Header';
import { SeatMap } from '../components/seatmap/SeatMap';
import { SeatLegend } from '../components/seatmap/SeatLegend';
import { VenuePlan } from '../components/seatmap/VenuePlan';
import { SelectionPanel } from '../components/seatmap/SelectionPanel';
import { BestAvailable, type BestAvailableRequest } from '../components/seatmap/BestAvailable';
import { ShowHeader } from '../components/seatmap/ShowHeader';
import { ChoiceNotices } from '../components/seatmap/ChoiceNotices';
import { shortSeatName, whyUnavailable } from '../components/seatmap/seatNames';
import { holdRefusal } from '../holdProblems';
import { useLiveSeatMap } from '../live/seatStream';
import { useSeatSelection } from '../seatSelection';
import { myHolds } from '../myHolds';
import { dateTime, timeOfDay } from '../format';
import { useSaleOpening } from '../saleOpening';
import { SaleCountdown } from '../components/SaleCountdown';
import { seatLabel, seatList } from '../seatLabel';
import { WaitingList } from '../components/WaitingList';

const TIER_COLOURS = 6;

/** No seat free: in the map shown, or (a hall with sections) in any section. */
const soldOut = (seats: Seat[] | null, sections: SectionSummary[] | null): boolean =>
  sections !== null && sections.length > 0 ? sections.every((s) => s.available === 0) : seats !== null && seats.every((s) => s.status !== 'available');
const SECTIONS_REFRESH_MS = 10_000;

export function ShowPage() {
  const { params, query } = useRoute();
  const { route } = useLocation();
  const id = params.id!;
  const signedIn = useSession() !== null;
  const [show, setShow] = useState<Show | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [sections, setSections] = useState<SectionSummary[] | null>(null);
  const [info, setInfo] = useState('');
  const [error, setError] = useState('');
  const [holding, setHolding] = useState(false);
  const [holds, setHolds] = useState<Hold[]>([]);
  const [bestHeld, setBestHeld] = useState<Hold | null>(null);
  const selection = useSeatSelection(id);
  const here = `/shows/${encodeURIComponent(id)}`;

  useEffect(() => {
    setShow(null);
    setLoadError(null);
    setSections(null);
    api.show(id)
      .then((s) => {
        if (s.waiting_room && !waitingRoom.admission(s.id)) {
          route(`${here}/queue`, true);
          return;
        }
        setShow(s);
        document.title = `${s.event.title} · ${s.venue.name} · boxoffice`;
      })
      .catch((e: unknown) => setLoadError(e instanceof ApiError && e.status === 404 ? 'There is no such show.' : 'The show could not be loaded. Please reload the page.'));
  }, [id]);

  // This tab's own holds on the show (checked with the service): their seats read "held by you".
  useEffect(() => {
    setHolds([]);
    if (show && signedIn) myHolds.current(show.id).then(setHolds).catch(() => {});
  }, [show, signedIn]);
  const mine = useMemo(() => new Set(holds.flatMap((h) => h.seats)), [holds]);

  const wanted = query.section || null;
  // The sections, read again each time the buyer comes back to them and every few
  // seconds while they are on screen (their counts change as others buy).
  useEffect(() => {
    if (!show || (sections && wanted)) return;
    let first = sections === null;
    const read = () => api.sections(show.id)
      .then((r) => {
        setSections(r.sections);
        if (r.sections.length === 0) clearInterval(every);
      })
      .catch(() => { if (first) setLoadError('The seat map could not be loaded. Please reload the page.'); })
      .finally(() => { first = false; });
    const every = setInterval(read, SECTIONS_REFRESH_MS);
    void read();
    return () => clearInterval(every);
  }, [show, wanted]);

  const known = sections !== null && (sections.length === 0 || sections.some((s) => s.section === wanted));
  const section = sections?.length && known ? wanted : null;
  const mapShown = show !== null && known;
  const live = useLiveSeatMap(mapShown ? show.id : null, section);

  // A chosen seat that someone else took leaves the selection, with a word why.
  useEffect(() => {
    if (!live.seats || holding) return;
    const gone = live.seats.filter((s) => s.status !== 'available' && selection.ids.has(s.seat));
    if (gone.length === 0) return;
    selection.remove(gone.map((s) => s.seat));
    setError(`${gone.map(shortSeatName).join(', ')} ${gone.length === 1 ? 'was' : 'were'} just taken by someone else.`);
  }, [live.seats]);

  const opensAt = useSaleOpening(show, (s) => { if (s.id === id) setShow(s); });
  const closedBefore = useRef(false);
  useEffect(() => {
    if (opensAt) closedBefore.current = true;
    else if (closedBefore.current) { closedBefore.current = false; setInfo('The sale has opened: choose your seats.'); }
  }, [opensAt]);

  const tierIndex = useMemo(() => {
    const order = Object.keys(show?.price_tiers ?? {});
    return (tier: string) => Math.max(0, order.indexOf(tier)) % TIER_COLOURS;
  }, [show]);

  if (loadError) return <section><h1>Show</h1><p role="alert" class="error">{loadError}</p><p><a href="/">Back to what's on</a></p></section>;
  if (!show) return <p aria-live="polite">Loading…</p>;

  const say = (text: string, isError: boolean) => {
    setInfo(isError ? '' : text);
    setError(isError ? text : '');
  };

  const pick = (seat: Seat) => {
    if (opensAt) return say(`The sale has not opened yet: seats can be chosen from ${dateTime(opensAt, show.venue.timezone)}.`, false);
    if (selection.ids.has(seat.seat)) {
      selection.remove([seat.seat]);
      say(`${shortSeatName(seat)} removed.`, false);
      return;
    }
    const why = whyUnavailable(seat, mine.has(seat.seat));
    if (why) return say(why, true);
    if (selection.seats.length >= show.per_user_limit) return say(`You can choose at most ${show.per_user_limit} seats for this show.`, true);
    selection.add(seat);
    say(`${shortSeatName(seat)} added.`, false);
  };

  const hold = async () => {
    const back = section ? `${here}?section=${encodeURIComponent(section)}` : here;
    if (!signedIn) return route(`/signin?next=${encodeURIComponent(back)}`);
    const ids = selection.seats.map((s) => s.seat);
    setHolding(true);
    say('Holding your seats…', false);
    try {
      const h = await api.hold(show.id, ids, waitingRoom.admission(show.id));
      myHolds.remember(h);
      selection.clear();
      route(`/holds/${encodeURIComponent(h.hold_id)}`);
    } catch (err) {
      const nameOf = (seatId: string) => {
        const seat = selection.seats.find((s) => s.seat === seatId) ?? live.seats?.find((s) => s.seat === seatId);
        return seat ? shortSeatName(seat) : seatLabel(seatId);
      };
      const taken = err instanceof ApiError ? err.problem.taken ?? [] : [];
      const refusal = holdRefusal(err, show, ids.filter((s) => !taken.includes(s)).length, nameOf, back);
      if (refusal.taken?.length) {
        selection.remove(refusal.taken);
        live.override(refusal.taken, 'held');
      }
      if (refusal.forgetAdmission) waitingRoom.forget(show.id);
      say(refusal.message, true);
      if (refusal.goTo) route(refusal.goTo);
    } finally {
      setHolding(false);
    }
  };

  // Best available: the hold is made at once; its seats show on the map as the buyer's
  // (in a stadium, on the section they are in), with the way to checkout.
  const holdBest = async (request: BestAvailableRequest) => {
    const back = section ? `${here}?section=${encodeURIComponent(section)}` : here;
    if (!signedIn) return route(`/signin?next=${encodeURIComponent(back)}`);
    setHolding(true);
    say('Finding the best seats together…', false);
    try {
      const h = await api.holdBest(show.id, request, waitingRoom.admission(show.id));
      myHolds.remember(h);
      setHolds((all) => [...all.filter((x) => x.hold_id !== h.hold_id), h]);
      setBestHeld(h);
      live.override(h.seats, 'held');
      say(`Held for you: ${seatList(h.seats)}.`, false);
      const there = /^(.+)-[A-Za-z]+\d+$/.exec(h.seats[0] ?? '')?.[1] ?? null;
      if (sections?.length && there && there !== section) route(`${here}?section=${encodeURIComponent(there)}`);
    } catch (err) {
      const refusal = holdRefusal(err, show, 0, seatLabel, back);
      if (refusal.forgetAdmission) waitingRoom.forget(show.id);
      say(refusal.message, true);
      if (refusal.goTo) route(refusal.goTo);
    } finally {
      setHolding(false);
    }
  };

  const tiers = Object.entries(show.price_tiers).map(([tier, price]) => ({ tier, price, index: tierIndex(tier) }));
  const sectionHref = (s: string) => `${here}?section=${encodeURIComponent(s)}`;
  const chooseSection = (s: string | null) => {
    say('', false);
    route(s === null ? here : sectionHref(s));
  };
  const facing = show.event.kind === 'film' ? 'Screen' : 'Stage';

  return (
    <div class="show-page">
      <ShowHeader show={show} />
      {holds.length > 0 && (
        <ul class="your-holds" aria-label="Your holds on this show">
          {holds.map((h) => (
            <li key={h.hold_id}>
              You hold {seatList(h.seats)} until {timeOfDay(h.expires_at, show.venue.timezone)}.{' '}
              <a href={`/holds/${encodeURIComponent(h.hold_id)}`}>Go to checkout</a>
            </li>
          ))}
        </ul>
      )}
      {signedIn && !opensAt && <WaitingList show={show} soldOut={soldOut(live.seats, sections)} />}
      {wanted && sections !== null && !known && <p class="error">This hall has no section {wanted}.</p>}
      {sections === null && <p aria-live="polite">Loading the seat map…</p>}
      {sections !== null && sections.length > 0 && !section && opensAt && <SaleCountdown opensAt={opensAt} />}
      {sections !== null && sections.length > 0 && !section && (
        <VenuePlan sections={sections} currency={show.currency} facing={facing} hrefOf={sectionHref} onChoose={chooseSection} />
      )}
      {mapShown && (sections?.length === 0 || section) && (
        <div class="show-layout">
          <section class={opensAt ? 'show-map before-sale' : 'show-map'} aria-labelledby="map-heading">
            <div class="map-heading">
              <h2 id="map-heading">{section ? `Section ${section}` : 'Seats'}</h2>
              {section && <button type="button" class="link" onClick={() => chooseSection(null)}>All sections</button>}
              <span class={`live-state ${live.state}`}>{live.state === 'live' ? 'Live' : live.state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}</span>
            </div>
            {live.seats === null
              ? <p>Loading seats…</p>
              : (
                <SeatMap
                  seats={live.seats}
                  selected={selection.ids}
                  mine={mine}
                  currency={show.currency}
                  tierIndex={tierIndex}
                  facing={facing}
                  label={`${section ? `Seats in section ${section}` : 'Seats'}${opensAt ? ' (the sale has not opened yet)' : ''}`}
                  onPick={pick}
                />
              )}
            <ChoiceNotices info={info} error={error} />
            <SeatLegend tiers={tiers} currency={show.currency} holding={mine.size > 0} />
          </section>
          {opensAt
            ? <SaleCountdown opensAt={opensAt} />
            : (
              <div class="show-aside">
                <SelectionPanel
                  seats={selection.seats}
                  currency={show.currency}
                  limit={show.per_user_limit}
                  signedIn={signedIn}
                  holding={holding}
                  onRemove={(seatId) => selection.remove([seatId])}
                  onHold={hold}
                />
                <BestAvailable
                  limit={show.per_user_limit}
                  currency={show.currency}
                  prices={[...new Set(Object.values(show.price_tiers))].sort((a, b) => a - b)}
                  sections={sections ?? []}
                  section={section}
                  signedIn={signedIn}
                  busy={holding}
                  held={bestHeld}
                  onAsk={(r) => void holdBest(r)}
                />
              </div>
            )}
        </div>
      )}
    </div>
  );
}
