export function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>There is nothing at this address. <a href="/">See what's on</a>.</p>
    </section>
  );
}
