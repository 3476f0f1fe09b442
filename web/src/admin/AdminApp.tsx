// The operators' pages under /admin, loaded only when an operator opens them.
// Someone who is not signed in as an admin is told so and offered the sign-in page.
import { Router, Route, lazy, useLocation } from 'preact-iso';
import { useSession } from '../components/Header';
import { AdminHome } from './AdminHome';
import { HallEditor } from './HallEditor';
import { ShowEditor } from './ShowEditor';
import { NotFound } from '../pages/NotFound';
import '../styles/admin.css';

// The dashboard brings uPlot: its own chunk, fetched when a dashboard is opened.
const ShowDashboard = lazy(() => import('./ShowDashboard').then((m) => m.ShowDashboard));

export function AdminApp() {
  const s = useSession();
  const { url } = useLocation();
  if (s?.role !== 'admin') {
    // Back to this very page after signing in (slashes kept readable: /signin?next=/admin).
    const next = encodeURIComponent(url).replace(/%2F/g, '/');
    return (
      <section class="admin">
        <h1>Operators only</h1>
        <p>These pages are for the box office's operators.{' '}
          {s ? 'This account is not an operator account.' : ''}{' '}
          <a href={`/signin?next=${next}`}>Sign in as an operator</a>.</p>
      </section>
    );
  }
  return (
    <Router>
      <Route path="/" component={AdminHome} />
      <Route path="/halls/new" component={HallEditor} />
      <Route path="/shows/new" component={ShowEditor} />
      <Route path="/shows/:id/edit" component={ShowEditor} />
      <Route path="/shows/:id" component={ShowDashboard} />
      <Route default component={NotFound} />
    </Router>
  );
}
