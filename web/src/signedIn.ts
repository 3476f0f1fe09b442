// Pages that need a signed-in buyer send everyone else to sign in, and back afterwards.
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useSession } from './components/Header';
import { signInFor } from './nextPath';
import type { Session } from './api/types';

export function useSignedIn(): Session | null {
  const s = useSession();
  const loc = useLocation();
  useEffect(() => {
    if (!s) loc.route(signInFor(loc.url), true);
  }, [s]);
  return s;
}
