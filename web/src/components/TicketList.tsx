// A confirmed booking's tickets: each seat with its QR code (the image encodes the
// ticket's code exactly), the code as text, and the QR as a PNG to download.
import type { Ticket } from '../api/types';
import { seatLabel } from '../seatLabel';

export function TicketList({ tickets }: { tickets: Ticket[] | null }) {
  if (!tickets || tickets.length === 0) return <p role="status">Issuing your tickets… they appear here within a few seconds.</p>;
  return (
    <ul class="tickets">
      {tickets.map((t) => {
        const seat = seatLabel(t.seat);
        return (
          <li class="ticket" key={t.ticket_id}>
            <h3>{seat}</h3>
            <img class="qr" src={t.qr_svg_url} alt={`QR code for ticket, ${seat}`} width={220} height={220} />
            <details>
              <summary>Ticket code for {seat}</summary>
              <code class="ticket-code">{t.code}</code>
            </details>
            <p><a href={t.qr_png_url} download={`ticket-${t.seat}.png`}>Download the QR code for {seat} (PNG)</a></p>
          </li>
        );
      })}
    </ul>
  );
}
