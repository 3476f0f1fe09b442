// The page frame and the routes. Every page talks to the service through ./api/client.
import { LocationProvider, Router, Route, lazy } from 'preact-iso';
import { Header } from './components/Header';
import { Home } from './pages/Home';
import { NotFound } from './pages/NotFound';

// The operators' pages are their own chunk: buyers never download them (nor uPlot).
const AdminApp = lazy(() => import('./admin/AdminApp').then((m) => m.AdminApp));

export function App() {
  return (
    <LocationProvider>
      <a class="skip-link" href="#main">Skip to content</a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Router>
          <Route path="/" component={Home} />
          <Route path="/admin" component={AdminApp} />
          <Route path="/admin/*" component={AdminApp} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}
