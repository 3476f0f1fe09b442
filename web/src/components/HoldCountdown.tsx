// The time left on a hold: shown every second, announced to screen readers only at
// a few moments (5 min, 2 min, 1 min, 30 s, 10 s, expiry), never every tick.
import { useEffect, useRef, useState } from 'preact/hooks';
import { timeOfDay } from '../format';

const ANNOUNCE_AT = [300, 120, 60, 30, 10];

/** The announcement moment a reading falls under: the smallest mark at or above it; 0 once expired. */
const bracket = (s: number): number => (s === 0 ? 0 : ANNOUNCE_AT.filter((a) => s <= a).pop() ?? Infinity);

export const secondsUntil = (iso: string): number => Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000));

export function clock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

function spoken(seconds: number): string {
  if (seconds >= 60) {
    const m = Math.round(seconds / 60);
    return `${m} minute${m === 1 ? '' : 's'}`;
  }
  return `${seconds} seconds`;
}

/** `timeZone`: the venue's, for the clock time the hold ends (left out until it is known). */
interface Props { expiresAt: string; timeZone: string | null; onExpired?: () => void }

export function HoldCountdown({ expiresAt, timeZone, onExpired }: Props) {
  const [left, setLeft] = useState(() => secondsUntil(expiresAt));
  const [announcement, setAnnouncement] = useState('');
  const lastAnnounced = useRef<number | null>(null);
  // The latest callback: the ticking effect outlives renders (it restarts only with a new expiry).
  const expired = useRef(onExpired);
  expired.current = onExpired;

  useEffect(() => {
    lastAnnounced.current = null;
    const tick = () => {
      const s = secondsUntil(expiresAt);
      setLeft(s);
      const b = bracket(s);
      // The first reading only sets the baseline: the page itself says how long is left.
      if (lastAnnounced.current === null) lastAnnounced.current = b;
      else if (b < lastAnnounced.current) {
        lastAnnounced.current = b;
        setAnnouncement(s === 0 ? 'Your hold has expired: the seats are no longer reserved for you.' : `${spoken(s)} left to pay before the seats are released.`);
      }
      if (s === 0) expired.current?.();
      return s;
    };
    if (tick() === 0) return;
    const id = setInterval(() => { if (tick() === 0) clearInterval(id); }, 1000);
    return () => clearInterval(id);
  }, [expiresAt]);

  const urgent = left <= 60;
  return (
    <div class={`countdown${urgent ? ' urgent' : ''}`}>
      <p role="timer" aria-live="off" aria-atomic="true">
        {left > 0
          ? <>Seats held for <strong>{clock(left)}</strong>{timeZone && <> <span class="muted">(until {timeOfDay(expiresAt, timeZone)})</span></>}</>
          : <strong>The hold has expired.</strong>}
      </p>
      <p class="visually-hidden" aria-live="polite">{announcement}</p>
    </div>
  );
}
