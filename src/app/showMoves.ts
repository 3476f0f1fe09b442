// Moving a show to another shard (docs/moving-a-show.md): its purchase routes pause
// (503 OVERLOADED with Retry-After) while its inventory is copied, checked and flipped;
// its map keeps answering. src/db/showMove.ts does the copy; this orders the steps
// around the placement on the control database.
import { beginMove, endMove, findPlacement } from '../db/placement.js';
import { moveShow, removeShowCopy } from '../db/showMove.js';
import * as shows from '../db/shows.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import type { Context } from './context.js';

export interface MovedShow {
  show_id: string;
  shard: string;
  epoch: number;
  /** How long the show's purchase routes answered 503: from the placement's `moving` to its flip. */
  paused_ms: number;
}

/**
 * Moves the show's inventory to `target`. One move per show at a time (409
 * MOVE_IN_PROGRESS); a show already there answers as it is. A move that fails leaves
 * the show whole where it was (src/db/showMove.ts) and selling again.
 */
export async function moveShowTo(ctx: Context, showId: string, target: string): Promise<MovedShow> {
  const shards = ctx.inventory.named();
  const to = shards.find((s) => s.name === target);
  if (!to) {
    throw validationFailed('unknown shard', [{ path: '/shard', message: `no shard named "${target}"; the shards are ${shards.map((s) => s.name).join(', ')}` }]);
  }
  const settings = await shows.findShowSettings(ctx.db, showId);
  const placed = await findPlacement(ctx.db, showId);
  if (!settings || !placed) throw notFound('show');
  if (placed.shard === target) return { show_id: showId, shard: placed.shard, epoch: placed.epoch, paused_ms: 0 };
  const from = shards.find((s) => s.name === placed.shard);
  if (!from) throw new Error(`show ${showId} is placed on shard "${placed.shard}", which SHARD_URLS does not name`);

  const started = performance.now();
  const moving = await beginMove(ctx.db, showId);
  if (!moving) throw new DomainError('MOVE_IN_PROGRESS', 'this show is being moved already');
  await ctx.inventory.follow(showId);
  ctx.log.info({ event: 'show.move_started', show_id: showId, from: from.name, to: target }, 'show move started: its purchase routes pause');
  try {
    // Rows of the show the target may still keep from an earlier move away from it (a
    // tally flushed during that move's pause, a crash's leftover): not the placed side, so
    // leftovers; removed, or the copy would refuse a target that is not empty.
    await removeShowCopy(to.db, showId);
    // The target needs the show's row (the claim reads it), then its inventory.
    await shows.writeShowCopy(to.db.as('show_move'), showId, { ...settings, sale_opens_at: settings.sale_opens_at! });
    let epoch = moving.epoch;
    const moved = await moveShow(from.db, to.db, showId, async () => {
      epoch = (await endMove(ctx.db, showId, target, true)).epoch;
    });
    const paused = Math.round(performance.now() - started);
    await ctx.inventory.follow(showId);
    ctx.log.info({ event: 'show.moved', show_id: showId, from: from.name, to: target, epoch, paused_ms: paused, copy_paused_ms: moved.pausedMs, seats: moved.tables.show_seats?.rows ?? 0 },
      'show moved: it sells from its new shard');
    return { show_id: showId, shard: target, epoch, paused_ms: paused };
  } catch (err) {
    // Not flipped (a flip that happened is not undone by moveShow): selling again where it was.
    const now = await findPlacement(ctx.db, showId);
    if (now?.state === 'moving') await endMove(ctx.db, showId, now.shard, false);
    await ctx.inventory.follow(showId);
    ctx.log.warn({ event: 'show.move_failed', show_id: showId, from: from.name, to: target, err }, 'show move failed: the show sells where it was');
    throw err;
  }
}
