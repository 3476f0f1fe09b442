// Shared helpers of the waiting-room tests (not a test file).
import { SignJWT } from 'jose';
import { loadConfig, type Config, type WaitingRoomSettings } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import type { HttpAnswer, HttpClient } from '../support/http.js';
import { REDIS_URL } from '../support/clients.js';

/** Service config with the room on the shared Redis under its own key prefix, ticking fast. */
export function roomConfig(prefix: string | null, over: Partial<WaitingRoomSettings> = {}): Partial<Config> {
  return {
    redisUrl: prefix === null ? null : REDIS_URL,
    waitingRoom: { ...loadConfig({}).waitingRoom, prefix: prefix ?? 'unused', tickMs: 50, admitPerMinute: 60_000, ...over },
  };
}

/** The instance's HS256 secret of waiting-room tokens, as stored in its database. */
export async function roomSecret(db: Database): Promise<Uint8Array> {
  const r = await db.query<{ value: string }>("select value from secrets where name = 'waiting_room_hs256'");
  return new TextEncoder().encode(r.rows[0]!.value);
}

/** A waiting-room token as the service signs them, with any claims. */
export function signRoomToken(key: Uint8Array, o: { audience: 'boxoffice-queue' | 'boxoffice-admission'; sub: string; claims: Record<string, unknown>; exp?: number | string }): Promise<string> {
  return new SignJWT(o.claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(o.sub).setIssuer('boxoffice').setAudience(o.audience)
    .setIssuedAt().setExpirationTime(o.exp ?? '1h')
    .sign(key);
}

/** The token with its signature's first character changed. */
export function forge(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  return `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
}

/** Joins and asks to be admitted until it is (following Retry-After); the admission token. */
export async function joinAndAdmit(http: HttpClient, showId: string, token: string, ms = 15_000): Promise<{ queueToken: string; position: number; admission: string }> {
  const joined = await http.post(`/v1/shows/${showId}/queue`, {}, token);
  if (joined.status !== 201) throw new Error(`join: ${joined.status} ${joined.text}`);
  const end = Date.now() + ms;
  let r: HttpAnswer;
  for (;;) {
    r = await http.post(`/v1/shows/${showId}/queue/admit`, { queue_token: joined.body.queue_token }, token);
    if (r.status === 200) break;
    if (r.status !== 403 || Date.now() > end) throw new Error(`admit: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  const position = (await http.post(`/v1/shows/${showId}/queue`, {}, token)).body.position as number;
  return { queueToken: joined.body.queue_token, position, admission: r.body.admission_token };
}
