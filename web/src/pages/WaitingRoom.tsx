// A show's waiting room (/shows/:id/queue): join once, keep the place for this tab,
// show where the buyer stands, ask again at a pace set by the distance to the front,
// and once served exchange the place for an admission and go to seat selection.
// It calls only the queue routes (never the seat database), so it keeps working
// while the seats cannot be reached; a failed poll says "reconnecting…" and goes on.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api/client';
import type { QueueJoin, QueueStatus } from '../api/types';
import { waitingRoom } from '../admission';
import { ShowLine } from '../components/ShowLine';
import { OpensIn } from '../components/SaleCountdown';
import { dateTime } from '../format';
import { problemText } from '../problemText';
import { admissionsBefore, estimateText, peopleAhead, placeInLine, pollDelayMs, secondsToFront } from '../queuePace';
import { useShowInfo } from '../showInfo';
import { useSignedIn } from '../signedIn';
import '../styles/checkout.css';
import { WaitingList } from '../components/WaitingList';

/** Refusals that asking again will not change. */
const FINAL = new Set(['NOT_FOUND', 'NO_WAITING_ROOM', 'SALE_CLOSED', 'FORBIDDEN', 'UNAUTHENTICATED']);

export function WaitingRoom() {
  const { params } = useRoute();
  const showId = params.id ?? '';
  const showPage = `/shows/${encodeURIComponent(showId)}`;
  const loc = useLocation();
  const signedIn = useSignedIn();
  const show = useShowInfo(showId);
  const [place, setPlace] = useState<QueueJoin | null>(() => waitingRoom.place(showId));
  const [status, setStatus] = useState<QueueStatus | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [reconnecting, setReconnecting] = useState(false);
  const [admitted, setAdmitted] = useState(false);
  const [lapsed, setLapsed] = useState(false);
  const placeRef = useRef(place);
  const statusRef = useRef<QueueStatus | null>(null);

  useEffect(() => {
    if (!signedIn) return;
    if (waitingRoom.admission(showId)) { loc.route(showPage, true); return; }
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const keep = (q: QueueJoin | null) => {
      placeRef.current = q;
      setPlace(q);
      if (q) waitingRoom.setPlace(showId, q);
      else waitingRoom.forget(showId);
    };

    const step = async (): Promise<void> => {
      let wait: number | null = null;
      try {
        let q = placeRef.current;
        // No place yet, or a pre-queue place once the sale opened (its position is drawn then).
        const seen = statusRef.current;
        if (!q || (q.position === null && seen !== null && seen.opened !== false)) {
          q = await api.joinQueue(showId);
          if (!live) return;
          keep(q);
        }
        const s = await api.queueStatus(showId);
        if (!live) return;
        statusRef.current = s;
        setStatus(s);
        setReconnecting(false);
        if (q.position !== null && q.position <= s.serving && !s.paused && !s.sold_out) {
          try {
            const a = await api.admit(showId, q.queue_token);
            if (!live) return;
            waitingRoom.setAdmission(showId, a);
            setAdmitted(true);
            loc.route(showPage);
            return;
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            if (e.code === 'NOT_YET_ADMITTED') wait = Math.max(1, e.problem.retry_after_seconds ?? 1) * 1000;
            else if (e.code === 'TOKEN_INVALID') { keep(null); wait = 1000; }
            // The turn came and passed unused: the place is gone; join again, at the back.
            else if (e.code === 'ADMISSION_LAPSED') { keep(null); setLapsed(true); wait = 1000; }
            else throw e;
          }
        }
        wait ??= pollDelayMs(q, s);
      } catch (e) {
        if (!live) return;
        if (e instanceof ApiError && FINAL.has(e.code)) {
          setFatal(problemText(e, {
            NO_WAITING_ROOM: 'This show does not sell through a waiting room.',
            NOT_FOUND: 'There is no such show.',
            SALE_CLOSED: 'The sale for this show has closed.',
          }));
          return;
        }
        setReconnecting(true);
        wait = Math.max(2000, ((e instanceof ApiError && e.retryAfterSeconds) || 0) * 1000);
      }
      timer = setTimeout(() => void step(), wait);
    };
    void step();
    return () => { live = false; clearTimeout(timer); };
  }, [showId, signedIn?.user_id]);

  if (!signedIn) return null;
  const title = show ? `Waiting room: ${show.event.title}` : 'Waiting room';
  if (fatal) {
    return <section><h1>{title}</h1><p class="error" role="alert">{fatal}</p><p><a href="/">See what's on</a></p></section>;
  }

  const position = place?.position ?? null;
  const preQueue = place !== null && position === null;
  const left = status && position !== null ? secondsToFront(position, status) : null;
  let phase = 'Joining the queue…';
  if (admitted) phase = 'It is your turn: taking you to seat selection.';
  else if (status?.sold_out) phase = 'Sold out: every seat is booked. Your place is kept in case seats come back.';
  else if (status?.paused) phase = 'Admissions are paused for now. Your place is kept; this page carries on by itself.';
  else if (preQueue) phase = 'You are in the pre-queue. When the sale opens, everyone in it gets a place in a random order.';
  else if (status && position !== null) {
    phase = admissionsBefore(position, status.serving) === 0 ? 'It is your turn: getting your admission…' : 'You are in the queue. Keep this page open: it moves on by itself.';
  }

  return (
    <section class="waiting-room">
      <h1>{title}</h1>
      <ShowLine show={show} title={false} />
      <p class="phase" role="status">{phase}</p>
      {reconnecting && <p class="notice" role="status">Reconnecting…</p>}
      {lapsed && <p class="notice" role="status">Your turn came and passed before you were admitted, so you have joined the queue again at the back.</p>}
      {status && (
        <dl class="facts panel">
          {preQueue && status.sale_opens_at && show && <><dt>Sale opens</dt><dd>{dateTime(status.sale_opens_at, show.venue.timezone)} <OpensIn at={status.sale_opens_at} /></dd></>}
          {position !== null && <><dt>Your place in the queue</dt><dd>{placeInLine(position, status.serving)}</dd></>}
          {position !== null && <><dt>People ahead of you</dt><dd>{peopleAhead(position, status.serving)}</dd></>}
          {position !== null && <><dt>Estimated wait</dt><dd>{status.paused ? 'unknown while paused' : estimateText(left)}</dd></>}
          <dt>People waiting</dt><dd>{status.waiting}</dd>
          <dt>Admission rate</dt><dd>{status.admit_rate_per_minute ? `${status.admit_rate_per_minute} people a minute` : 'unknown'}</dd>
        </dl>
      )}
      {status?.sold_out && show && <WaitingList show={show} soldOut />}
      <p class="muted">Your place is kept for this browser tab. Once admitted you have a limited time to choose seats and pay.</p>
    </section>
  );
}
