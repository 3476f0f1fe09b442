// A private three-master Redis Cluster for a test file: three redis-server
// children (cluster mode, no persistence, a temp directory), their slots given
// out by `redis-cli --cluster create` (0-5460, 5461-10922, 10923-16383, no
// replicas). Ports are picked at run time at most 55535 (each node's cluster bus
// listens on its port + 10000). `cluster-require-full-coverage no`: with a master
// down, the others keep serving their own slots — the setting a deployment needs
// for one master's loss to stop only its shows' rooms. Never the shared Redis.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const MAX_PORT = 55_535;
const MIN_PORT = 20_000;

export interface ClusterNode {
  port: number;
  proc: ChildProcess;
  /** The first and last slot it was given. */
  slots: readonly [number, number];
}

export interface RedisCluster {
  nodes: ClusterNode[];
  /** `127.0.0.1:p1,127.0.0.1:p2,…` as REDIS_CLUSTER_NODES takes it. */
  spec: string;
  /** The node that serves this key's slot (by the cluster's own CLUSTER KEYSLOT). */
  nodeOf(key: string): Promise<ClusterNode>;
  /** The slot of this key, as the cluster computes it. */
  keySlot(key: string): Promise<number>;
  /** SIGKILLs the node's redis-server and waits until it is gone. */
  kill(node: ClusterNode): Promise<void>;
  /** Stops every node and removes the temp directory (safe to call twice). */
  stop(): Promise<void>;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port ≤ 55535 whose cluster bus port (+10000) is free too, not in `taken`. */
async function pickPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = MIN_PORT + Math.floor(Math.random() * (MAX_PORT - MIN_PORT + 1));
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a cluster node');
}

async function waitFor(what: string, f: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`redis cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

async function stopProc(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

/** Starts the three masters and makes them one cluster; everything is stopped again if that fails. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'bo-rcluster-'));
  const nodes: ClusterNode[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => stopProc(n.proc)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    const ranges: [number, number][] = [[0, 5460], [5461, 10922], [10923, 16383]];
    for (const slots of ranges) {
      const port = await pickPort(taken);
      taken.add(port).add(port + 10_000);
      const proc = spawn(REDIS_SERVER, [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
        '--cluster-node-timeout', '1000', '--cluster-require-full-coverage', 'no',
        '--save', '', '--appendonly', 'no',
      ], { stdio: 'ignore' });
      nodes.push({ port, proc, slots });
      await waitFor(`node ${port} to listen`, async () => (await cli(port, 'PING')).trim() === 'PONG', 10_000);
    }
    await run(REDIS_CLI, ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    for (const n of nodes) {
      await waitFor(`node ${n.port} to see the cluster ok`, async () => (await cli(n.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'), 20_000);
    }
    // redis-cli gives the slots out in the order the nodes were named; check, do not assume.
    for (const n of nodes) {
      const owner = await nodeOfSlot(nodes, n.slots[0]);
      if (owner !== n) throw new Error(`redis cluster: slot ${n.slots[0]} is not on ${n.port}`);
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const keySlot = async (key: string): Promise<number> => {
    const live = nodes.find((n) => n.proc.exitCode === null && n.proc.signalCode === null)!;
    const redis = new Redis({ port: live.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      return Number(await redis.call('CLUSTER', 'KEYSLOT', key));
    } finally {
      redis.disconnect();
    }
  };
  return {
    nodes,
    spec: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    keySlot,
    async nodeOf(key) {
      const slot = await keySlot(key);
      return nodes.find((n) => slot >= n.slots[0] && slot <= n.slots[1])!;
    },
    async kill(node) {
      await stopProc(node.proc);
    },
    stop,
  };
}

/** The node CLUSTER SLOTS (asked of a live node) names for the slot. */
async function nodeOfSlot(nodes: ClusterNode[], slot: number): Promise<ClusterNode | undefined> {
  const redis = new Redis({ port: nodes[0]!.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    const slots = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    return range ? nodes.find((n) => n.port === range[2][1]) : undefined;
  } finally {
    redis.disconnect();
  }
}
