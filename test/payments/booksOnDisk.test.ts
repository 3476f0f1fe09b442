// The payment simulator's books kept in a folder (`dataDir`, `--data-dir`): a
// PaymentIntent that succeeded before a restart, a graceful one or a kill -9, can be
// refunded after it, and an idempotent retry after the restart gets the first answer.
// The control: the same steps with the books in memory forget the PaymentIntent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Stripe from 'stripe';
import { rejection, sdkClient, startSimulator, type RunningSimulator } from './simulatorHarness.js';
import { BUILD_DIR, ensureBuild, freePort } from '../resilience/childService.js';

const pay = (bookingId: string): Stripe.PaymentIntentCreateParams => ({
  amount: 2500, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, metadata: { booking_id: bookingId },
});
const booksFile = (dir: string) => path.join(dir, 'books.jsonl');
const lines = (dir: string) => readFileSync(booksFile(dir), 'utf8').split('\n').filter((l) => l !== '');

let dir: string;
let running: RunningSimulator | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('the simulator in process, books in a folder', () => {
  it('refunds after a restart a PaymentIntent that succeeded before it, and replays its idempotent answer', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'paysim-books-'));
    running = await startSimulator({ dataDir: dir, logger: false });
    const paid = await running.stripe.paymentIntents.create(pay('bk_1'), { idempotencyKey: 'booking-bk_1' });
    const declined = await rejection(running.stripe.paymentIntents.create({ ...pay('bk_2'), payment_method: 'pm_card_declined' })) as Stripe.errors.StripeCardError;
    expect(paid.status).toBe('succeeded');
    const linesBefore = lines(dir).length;
    await running.close();

    running = await startSimulator({ dataDir: dir, logger: false });
    const stripe = running.stripe;
    expect(await stripe.paymentIntents.retrieve(paid.id)).toMatchObject({ status: 'succeeded', amount_received: 2500, metadata: { booking_id: 'bk_1' } });
    expect((await stripe.paymentIntents.retrieve(declined.payment_intent!.id)).status).toBe('requires_payment_method');
    // Newest first, as before the restart.
    expect((await stripe.paymentIntents.list()).data.map((p) => p.id)).toEqual([declined.payment_intent!.id, paid.id]);
    const again = await stripe.paymentIntents.create(pay('bk_1'), { idempotencyKey: 'booking-bk_1' });
    expect(again.id).toBe(paid.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    const events = await stripe.events.list({ limit: 100 });
    expect(events.data.filter((e) => e.type === 'payment_intent.succeeded').map((e) => (e.data.object as Stripe.PaymentIntent).id)).toEqual([paid.id]);
    // The start compacted the file: one line per record (each PaymentIntent was written twice, created and charged).
    expect(lines(dir).length).toBeLessThan(linesBefore);

    const refund = await stripe.refunds.create({ payment_intent: paid.id });
    expect(refund.status).toBe('succeeded');
    await running.close();
    running = await startSimulator({ dataDir: dir, logger: false });
    // The refund is on the books too: a second one is refused.
    expect((await running.stripe.refunds.list({ payment_intent: paid.id })).data.map((r) => r.id)).toEqual([refund.id]);
    const twice = await rejection(running.stripe.refunds.create({ payment_intent: paid.id })) as Stripe.errors.StripeError;
    expect(twice.code).toBe('charge_already_refunded');
  });

  it('control: with the books in memory, the restarted simulator has never heard of the PaymentIntent', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'paysim-books-'));
    running = await startSimulator({ logger: false });
    const paid = await running.stripe.paymentIntents.create(pay('bk_1'));
    await running.close();
    running = await startSimulator({ logger: false });
    const err = await rejection(running.stripe.refunds.create({ payment_intent: paid.id })) as Stripe.errors.StripeError;
    expect(err.code).toBe('resource_missing');
  });

  it('refuses to start on a file that is not its books, rather than start with part of them', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'paysim-books-'));
    running = await startSimulator({ dataDir: dir, logger: false });
    await running.stripe.paymentIntents.create(pay('bk_1'));
    await running.close();
    running = null;
    const text = readFileSync(booksFile(dir), 'utf8');
    appendFileSync(booksFile(dir), 'not a record\n');
    await expect(startSimulator({ dataDir: dir, logger: false })).rejects.toThrow(/line \d+ is not a record/);
    expect(readFileSync(booksFile(dir), 'utf8')).toBe(`${text}not a record\n`);
  });
});

/** The built simulator (`node …/paysim/dist/main.js --data-dir DIR`) as a child process; resolves once it answers. */
async function spawnSimulator(main: string, port: number, dataDir: string): Promise<{ child: ChildProcess; stripe: Stripe; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [main, '--data-dir', dataDir], {
    env: { PATH: process.env.PATH ?? '', PAYSIM_PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (const until = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null) throw new Error(`the simulator exited (${child.exitCode}) while starting`);
    if (await fetch(`http://127.0.0.1:${port}/_sim/health`).then((r) => r.ok, () => false)) break;
    if (Date.now() > until) throw new Error('the simulator did not start within 20 s');
  }
  return { child, stripe: sdkClient(port, 10_000), exited };
}

describe('the simulator process, killed with SIGKILL while paying', () => {
  let main: string;
  let child: { child: ChildProcess; exited: Promise<unknown> } | null = null;
  beforeAll(() => {
    ensureBuild((s) => process.stdout.write(`[books on disk] ${s}\n`));
    main = path.join(BUILD_DIR, 'node_modules', '@boxoffice', 'paysim', 'dist', 'main.js');
  }, 180_000);
  afterAll(async () => {
    child?.child.kill('SIGKILL');
    await child?.exited;
  });

  it('keeps every PaymentIntent whose success it answered, and refunds each after the restart', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'paysim-books-'));
    const port = await freePort();
    const first = await spawnSimulator(main, port, dir);
    child = first;
    // Payments keep arriving until the kill; the ones answered before it are the bank's promise.
    const answered: string[] = [];
    let killed = false;
    const payer = async (n: number) => {
      for (let i = 0; !killed; i++) {
        try {
          answered.push((await first.stripe.paymentIntents.create(pay(`bk_${n}_${i}`))).id);
        } catch {
          return; // the kill cut this one off
        }
      }
    };
    const payers = Array.from({ length: 8 }, (_, n) => payer(n));
    while (answered.length < 60) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    killed = true;
    await first.exited;
    await Promise.all(payers);
    // A write cut off by a kill leaves a torn last line: the restart must drop it, not refuse.
    appendFileSync(booksFile(dir), '{"kind":"payment_intent","value":{"id":"pi_torn');

    const second = await spawnSimulator(main, port, dir);
    child = second;
    for (const id of answered) {
      expect((await second.stripe.paymentIntents.retrieve(id)).status, id).toBe('succeeded');
      expect((await second.stripe.refunds.create({ payment_intent: id })).status, id).toBe('succeeded');
    }
    process.stdout.write(`[books on disk] ${answered.length} PaymentIntents answered before the SIGKILL, each refunded after the restart\n`);
    second.child.kill('SIGTERM');
    await second.exited;
    child = null;
  }, 60_000);
});
