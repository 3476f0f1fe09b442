// What operators see of the shards: each shard's health and load, and where a show lives.
import { findPlacement, shardLoads } from '../db/placement.js';
import { notFound } from '../domain/errors.js';
import type { Context } from './context.js';
import { probe } from './readiness.js';

export interface ShardView {
  name: string;
  up: boolean;
  shows: number;
  expected_demand: number;
}

/** Every shard (`main` for the one database): whether it answers now, its shows, the demand its shows not yet started expect. */
export async function listShards(ctx: Context): Promise<{ shards: ShardView[] }> {
  const named = ctx.inventory.named();
  const [loads, ...whys] = await Promise.all([shardLoads(ctx.db), ...named.map((s) => probe(s.db))]);
  return {
    shards: named.map((s, i) => ({
      name: s.name, up: whys[i] === null, shows: loads.get(s.name)?.shows ?? 0, expected_demand: loads.get(s.name)?.expected_demand ?? 0,
    })),
  };
}

/** Where a show's inventory lives, as the control database says now. */
export async function showPlacement(ctx: Context, showId: string): Promise<{ show_id: string; shard: string; epoch: number }> {
  const p = await findPlacement(ctx.db, showId);
  if (!p) throw notFound('show');
  return { show_id: p.show_id, shard: p.shard, epoch: p.epoch };
}
