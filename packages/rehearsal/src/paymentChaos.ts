// The rehearsal's payment chaos (--chaos) on the simulator's /_sim/chaos: the
// settings found are read first and put back when the rehearsal ends, also after
// a failure or Ctrl-C, so a simulator that others pay through is left as found.
import { onCleanup } from './cleanup.js';
import { CHAOS_SETTINGS } from './options.js';

const WAIT_MS = 10_000;

async function chaosCall(paysimUrl: string, settings?: object): Promise<Record<string, unknown>> {
  const r = await fetch(`${paysimUrl}/_sim/chaos`, {
    method: settings ? 'POST' : 'GET',
    headers: settings ? { 'content-type': 'application/json' } : {},
    body: settings ? JSON.stringify(settings) : undefined,
    signal: AbortSignal.timeout(WAIT_MS),
  });
  if (!r.ok) throw new Error(`the payment simulator at ${paysimUrl} answered ${r.status} to ${settings ? 'POST' : 'GET'} /_sim/chaos: ${(await r.text()).slice(0, 300)}`);
  return (await r.json()) as Record<string, unknown>;
}

/** Turns the rehearsal's chaos on; returns the step that puts the settings found back (run it at the end). */
export async function turnOnPaymentChaos(paysimUrl: string, log: (s: string) => void): Promise<() => Promise<void>> {
  const found = await chaosCall(paysimUrl);
  const putBack = onCleanup('put the payment chaos back', async () => {
    await chaosCall(paysimUrl, found);
    log(`payment chaos put back: ${JSON.stringify(found)}`);
  });
  try {
    await chaosCall(paysimUrl, CHAOS_SETTINGS);
  } catch (err) {
    // Refused or unanswered: whatever it did take is put back now, not at the end.
    await putBack().catch(() => {});
    throw err;
  }
  log(`payment chaos on: ${JSON.stringify(CHAOS_SETTINGS)} (found ${JSON.stringify(found)})`);
  return putBack;
}
