// The page frame and the routes. Every page talks to the service through ./api/client.
import { LocationProvider, Router, Route, lazy } from 'preact-iso';
import { Header } from './components/Header';
import { Home } from './pages/Home';
import { EventPage } from './pages/EventPage';
import { ShowPage } from './pages/ShowPage';
import { NotFound } from './pages/NotFound';
import { SignIn } from './pages/SignIn';
import { SignUp } from './pages/SignUp';
import { Checkout } from './pages/Checkout';
import { Bookings } from './pages/Bookings';
import { BookingPage } from './pages/BookingPage';
import { WaitingRoom } from './pages/WaitingRoom';

// The operators' pages are their own chunk: buyers never download them (nor uPlot).
const AdminApp = lazy(() => import('./admin/AdminApp').then((m) => m.AdminApp));

/**
 * After a navigation within the app, the new page's heading (or its main content) takes
 * the focus, so a keyboard or screen-reader user starts on the page they arrived at,
 * not on a control of the page that went away.
 */
function focusNewPage(): void {
  requestAnimationFrame(() => {
    const main = document.getElementById('main');
    if (!main || main.contains(document.activeElement)) return;
    const heading = main.querySelector<HTMLElement>('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    } else {
      main.focus({ preventScroll: true });
    }
  });
}

export function App() {
  return (
    <LocationProvider>
      <a class="skip-link" href="#main">Skip to content</a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Router onRouteChange={focusNewPage}>
          <Route path="/" component={Home} />
          <Route path="/admin" component={AdminApp} />
          <Route path="/admin/*" component={AdminApp} />
          <Route path="/signin" component={SignIn} />
          <Route path="/signup" component={SignUp} />
          <Route path="/holds/:id" component={Checkout} />
          <Route path="/bookings" component={Bookings} />
          <Route path="/bookings/:id" component={BookingPage} />
          <Route path="/shows/:id/queue" component={WaitingRoom} />
          <Route path="/events/:id" component={EventPage} />
          <Route path="/shows/:id" component={ShowPage} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}
