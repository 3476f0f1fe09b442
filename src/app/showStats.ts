// A show's figures for operators: seats by state, holds, conflicts, bookings,
// refunds, and seats sold twice (must be 0).
import { notFound } from '../domain/errors.js';
import { showStats as readShowStats, type ShowStats } from '../db/stats.js';
import type { Context } from './context.js';

export async function showStats(ctx: Context, showId: string): Promise<ShowStats> {
  // This instance's hold counts are batched in memory; write them first so the figures are whole.
  await ctx.holdTally.flush(ctx.inventory);
  const stats = await readShowStats(await ctx.inventory.ofShow(showId), showId);
  if (!stats) throw notFound('show');
  return stats;
}
