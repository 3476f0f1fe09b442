// Asks GET <url>/healthz every 50 ms until stdin closes, then prints every latency in
// ms (a failed probe as null) and the moment each was sent (ms since the epoch), as
// one JSON line. A process of its own, so that what it
// measures is the service's answer, not the event loop of a test busy making load.
const url = `${process.argv[2]}/healthz`;
const latencies = [];
const sentAt = [];
let running = true;
process.stdin.on('end', () => { running = false; });
process.stdin.resume();
while (running) {
  const t0 = performance.now();
  sentAt.push(Date.now());
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await r.text();
    latencies.push(r.status === 200 ? performance.now() - t0 : null);
  } catch {
    latencies.push(null);
  }
  await new Promise((r) => setTimeout(r, 50));
}
process.stdout.write(`${JSON.stringify({ latencies, sentAt })}\n`);
