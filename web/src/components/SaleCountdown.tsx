// The time left until a show's sale opens, every second: a timer that screen readers
// read when asked, not at each tick. SaleCountdown stands in for "Hold seats" meanwhile.
import { useEffect, useState } from 'preact/hooks';
import { untilText } from '../saleTime';
import { secondsUntil } from './HoldCountdown';
import '../styles/saleOpening.css';

export function OpensIn({ at }: { at: string }) {
  const [left, setLeft] = useState(() => secondsUntil(at));
  useEffect(() => {
    setLeft(secondsUntil(at));
    const id = setInterval(() => setLeft(secondsUntil(at)), 1000);
    return () => clearInterval(id);
  }, [at]);
  return <span role="timer" aria-live="off" aria-atomic="true" class="opens-in">Opens in <strong>{untilText(left)}</strong></span>;
}

export function SaleCountdown({ opensAt }: { opensAt: string }) {
  return (
    <section class="sale-countdown" aria-labelledby="sale-countdown-heading">
      <h2 id="sale-countdown-heading">The sale has not opened yet</h2>
      <p><OpensIn at={opensAt} /></p>
      <p>Seats can be chosen from then. The map opens by itself: there is no need to reload this page.</p>
    </section>
  );
}
