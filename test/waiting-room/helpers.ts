// Shared helpers of the waiting-room tests (not a test file).
import { SignJWT } from 'jose';
import { loadConfig, type Config, type WaitingRoomSettings } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import type { HttpAnswer, HttpClient } from '../support/http.js';
import { REDIS_URL } from '../support/clients.js';
import { roomTokenKeys } from '../../src/waiting-room/tokens.js';

/** Service config with the room on the shared Redis under its own key prefix, ticking fast. */
export function roomConfig(prefix: string | null, over: Partial<WaitingRoomSettings> = {}): Partial<Config> {
  return {
    redisUrl: prefix === null ? null : REDIS_URL,
    waitingRoom: { ...loadConfig({}).waitingRoom, prefix: prefix ?? 'unused', tickMs: 50, admitPerMinute: 60_000, ...over },
  };
}

/** The instance's keys of waiting-room tokens, derived as the service does from the secret stored in its database. */
export async function roomKeys(db: Database): Promise<{ queue: Uint8Array; admission: Uint8Array }> {
  const r = await db.query<{ value: string }>("select value from secrets where name = 'waiting_room_hs256'");
  const keys = roomTokenKeys(r.rows[0]!.value);
  return { queue: new Uint8Array(keys.queue), admission: new Uint8Array(keys.admission) };
}

/** A waiting-room token of this kind as the service signs them (its key, issuer and audience), with any claims; bare: without iss and aud. */
export function signRoomToken(
  keys: { queue: Uint8Array; admission: Uint8Array },
  o: { kind: 'queue' | 'admission'; sub: string; claims: Record<string, unknown>; exp?: number | string; bare?: boolean },
): Promise<string> {
  const jwt = new SignJWT(o.claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(o.sub).setIssuedAt().setExpirationTime(o.exp ?? '1h');
  // bare: without iss and aud.
  if (!o.bare) jwt.setIssuer('boxoffice').setAudience(`boxoffice:${o.kind}`);
  return jwt.sign(keys[o.kind]);
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
