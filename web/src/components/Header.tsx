import { useEffect, useState } from 'preact/hooks';
import { session } from '../api/client';
import type { Session } from '../api/types';

/** The signed-in person, re-read whenever the session changes (sign-in, sign-out, a 401). */
export function useSession(): Session | null {
  const [s, setS] = useState(session.get());
  useEffect(() => {
    const changed = () => setS(session.get());
    window.addEventListener('boxoffice:session', changed);
    window.addEventListener('storage', changed);
    return () => {
      window.removeEventListener('boxoffice:session', changed);
      window.removeEventListener('storage', changed);
    };
  }, []);
  return s;
}

export function Header() {
  const s = useSession();
  return (
    <header class="site-header">
      <a class="brand" href="/">boxoffice</a>
      <nav aria-label="Main">
        <ul>
          <li><a href="/">What's on</a></li>
          {s && <li><a href="/bookings">My bookings</a></li>}
          {s?.role === 'admin' && <li><a href="/admin">Operators</a></li>}
          {s
            ? <li><button type="button" class="link" onClick={() => session.set(null)}>Sign out</button></li>
            : <li><a href="/signin">Sign in</a></li>}
        </ul>
      </nav>
    </header>
  );
}
