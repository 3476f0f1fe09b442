// Chaos settings: what the simulated bank does wrong on purpose. Read from the
// environment at start, changed at runtime through POST /_sim/chaos. Rates are
// probabilities in [0, 1]; every draw goes through one (optionally seeded) generator.
import { seededRandom, type Random } from './rng.js';

export interface ChaosSettings {
  /** Added to every API request before it is handled. */
  latency_ms: number;
  /** Share of API requests answered 500 api_error before anything is committed. */
  error_rate: number;
  /** Share of committing POSTs whose outcome is committed but whose first connection never gets an answer. */
  timeout_after_commit_rate: number;
  /** Share of webhook events delivered twice. */
  webhook_duplicate_rate: number;
  /** Each webhook delivery waits a random 0..N ms before it is sent. */
  webhook_delay_ms: number;
  /** Deliveries that become due together are sent as a batch in a shuffled order. */
  webhook_reorder: boolean;
}

export const NO_CHAOS: Readonly<ChaosSettings> = Object.freeze({
  latency_ms: 0,
  error_rate: 0,
  timeout_after_commit_rate: 0,
  webhook_duplicate_rate: 0,
  webhook_delay_ms: 0,
  webhook_reorder: false,
});

const RATES = ['error_rate', 'timeout_after_commit_rate', 'webhook_duplicate_rate'] as const;
const DURATIONS = ['latency_ms', 'webhook_delay_ms'] as const;
const MAX_DURATION_MS = 600_000;

/** Checks a partial settings object (from JSON or env); returns the problems, empty when valid. */
export function chaosProblems(patch: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(patch)) {
    if ((RATES as readonly string[]).includes(name)) {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) problems.push(`${name} must be a number from 0 to 1`);
    } else if ((DURATIONS as readonly string[]).includes(name)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DURATION_MS) {
        problems.push(`${name} must be an integer from 0 to ${MAX_DURATION_MS}`);
      }
    } else if (name === 'webhook_reorder') {
      if (typeof value !== 'boolean') problems.push('webhook_reorder must be a boolean');
    } else {
      problems.push(`unknown setting ${name}`);
    }
  }
  return problems;
}

/** PAYSIM_* variables as a settings patch; throws on a malformed value so a typo never runs silently. */
export function chaosFromEnv(env: NodeJS.ProcessEnv): Partial<ChaosSettings> {
  const patch: Record<string, unknown> = {};
  const number = (name: string, setting: keyof ChaosSettings) => {
    const raw = env[name];
    if (raw !== undefined && raw !== '') patch[setting] = Number(raw);
  };
  number('PAYSIM_LATENCY_MS', 'latency_ms');
  number('PAYSIM_ERROR_RATE', 'error_rate');
  number('PAYSIM_TIMEOUT_AFTER_COMMIT_RATE', 'timeout_after_commit_rate');
  number('PAYSIM_WEBHOOK_DUPLICATE_RATE', 'webhook_duplicate_rate');
  number('PAYSIM_WEBHOOK_DELAY_MS', 'webhook_delay_ms');
  const reorder = env.PAYSIM_WEBHOOK_REORDER;
  if (reorder !== undefined && reorder !== '') patch.webhook_reorder = ['1', 'true', 'yes', 'on'].includes(reorder.toLowerCase());
  const problems = chaosProblems(patch);
  if (problems.length > 0) throw new Error(`bad PAYSIM_* chaos setting: ${problems.join('; ')}`);
  return patch as Partial<ChaosSettings>;
}

/** The live settings and the generator every chaos decision draws from. */
export class Chaos {
  private current: ChaosSettings;
  readonly random: Random;

  constructor(initial: Partial<ChaosSettings> = {}, seed?: number) {
    this.current = { ...NO_CHAOS, ...initial };
    this.random = seed === undefined ? Math.random : seededRandom(seed);
  }

  get settings(): Readonly<ChaosSettings> {
    return this.current;
  }

  /** Applies a validated patch; the caller checks chaosProblems first. */
  update(patch: Partial<ChaosSettings>): Readonly<ChaosSettings> {
    this.current = { ...this.current, ...patch };
    return this.current;
  }

  /** True with probability `rate`; a zero rate never consumes a draw, so seeded runs stay comparable. */
  happens(rate: number): boolean {
    return rate > 0 && this.random() < rate;
  }

  /** A uniformly random whole number of ms in [0, max]. */
  upTo(max: number): number {
    return max > 0 ? Math.floor(this.random() * (max + 1)) : 0;
  }
}
