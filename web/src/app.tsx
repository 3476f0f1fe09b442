// The page frame and the routes. Every page talks to the service through ./api/client.
import { LocationProvider, Router, Route } from 'preact-iso';
import { Header } from './components/Header';
import { Home } from './pages/Home';
import { EventPage } from './pages/EventPage';
import { ShowPage } from './pages/ShowPage';
import { NotFound } from './pages/NotFound';

export function App() {
  return (
    <LocationProvider>
      <a class="skip-link" href="#main">Skip to content</a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Router>
          <Route path="/" component={Home} />
          <Route path="/events/:id" component={EventPage} />
          <Route path="/shows/:id" component={ShowPage} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}
