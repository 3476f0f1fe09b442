// The waiting room's figures for /metrics: per room (of those this instance
// ticks) its serving counter, queue depth and no-shows, read from the store at
// scrape time; the controller's rate and the inputs it last decided on.
import { Gauge, type Registry } from 'prom-client';
import type { WaitingRoom } from './room.js';

export function registerRoomMetrics(registry: Registry, room: WaitingRoom): void {
  const perRoom = (name: string, help: string, pick: (s: Awaited<ReturnType<WaitingRoom['store']['state']>>) => number) =>
    new Gauge({
      name, help, labelNames: ['show'] as const, registers: [registry],
      async collect() {
        this.reset();
        for (const show of room.ticker.watched()) {
          const state = await room.store.state(show).catch(() => null);
          if (state) this.set({ show }, pick(state));
        }
      },
    });
  perRoom('boxoffice_queue_serving', 'Positions up to this one may be admitted, per waiting room', (s) => s.serving);
  perRoom('boxoffice_queue_waiting', 'Buyers in a waiting room not served yet (the pre-queue before the opening)', (s) => (s.opened ? Math.max(0, s.tail - s.serving) : s.preQueue));
  perRoom('boxoffice_queue_admitted', 'Accounts that exchanged their queue token for an admission, per waiting room', (s) => s.admitted);
  perRoom('boxoffice_queue_no_shows', 'Served positions that made no hold within the grace period (their slots went to the next)', (s) => s.noShows);
  new Gauge({
    name: 'boxoffice_admission_rate_per_minute', help: "The rooms' admission rate before operators' pause and cap (the controller's, or the fixed one)",
    registers: [registry],
    collect() { this.set(room.ratePerMinute()); },
  });
  new Gauge({
    name: 'boxoffice_admission_controller_input', help: "The signals the admission controller last decided on, by input",
    labelNames: ['input'] as const, registers: [registry],
    collect() {
      const v = room.controller?.view();
      if (!v) return;
      this.set({ input: 'hold_latency_ms' }, v.hold_latency_ms ?? 0);
      this.set({ input: 'baseline_hold_latency_ms' }, v.baseline_hold_latency_ms ?? 0);
      this.set({ input: 'rejections' }, v.rejections);
      this.set({ input: 'pool_waiting' }, v.pool_waiting);
      if (v.pool_utilization !== null) this.set({ input: 'pool_utilization' }, v.pool_utilization);
      this.set({ input: 'completions_per_second' }, v.completions_per_second);
      this.set({ input: 'holds_per_second' }, v.holds_per_second);
    },
  });
}
