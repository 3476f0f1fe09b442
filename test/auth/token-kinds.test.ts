// The three HS256 token kinds (user bearer, queue, admission) each name their
// issuer and audience, and each is refused as another kind; a token verified once
// (and remembered) is refused once its `exp` has passed. Direct, no service.
import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { UserTokens } from '../../src/auth/tokens.js';
import { RoomTokens, roomTokenKeys } from '../../src/waiting-room/tokens.js';
import { admissionOf } from '../../src/waiting-room/gate.js';

const USER_SECRET = 'user-secret-of-at-least-thirty-two-characters';
const ROOM_SECRET = 'room-secret-of-at-least-thirty-two-characters';
const keys = roomTokenKeys(ROOM_SECRET);
const KEY = { user: new TextEncoder().encode(USER_SECRET), queue: new Uint8Array(keys.queue), admission: new Uint8Array(keys.admission) };

/** A token signed with `key`, carrying iss/aud only where given. */
function sign(key: Uint8Array, claims: Record<string, unknown>, o: { iss?: string; aud?: string; expSeconds?: number } = {}): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject('usr_a').setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (o.expSeconds ?? 3600));
  if (o.iss !== undefined) jwt.setIssuer(o.iss);
  if (o.aud !== undefined) jwt.setAudience(o.aud);
  return jwt.sign(key);
}

const USER = { role: 'user' };
const QUEUE = { show: 'show_1', entry: 'qe_1' };
const ADMISSION = { show: 'show_1', pos: 3 };
/** Claims that would satisfy every kind's checks at once, so only iss/aud and the key tell them apart. */
const ALL = { ...USER, ...QUEUE, ...ADMISSION };

const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

describe('token kinds', () => {
  it('accepts each kind with its issuer and audience, signed with its own key', async () => {
    const users = new UserTokens(USER_SECRET, 60);
    const room = new RoomTokens(ROOM_SECRET);
    expect(users.verify(await sign(KEY.user, USER, { iss: 'boxoffice', aud: 'boxoffice:user' }))).toEqual({ userId: 'usr_a', role: 'user' });
    expect(room.verifyQueue(await sign(KEY.queue, QUEUE, { iss: 'boxoffice', aud: 'boxoffice:queue' }))).toEqual({ userId: 'usr_a', showId: 'show_1', entryId: 'qe_1' });
    expect(room.verifyAdmission(await sign(KEY.admission, ADMISSION, { iss: 'boxoffice', aud: 'boxoffice:admission' }))).toMatchObject({ userId: 'usr_a', showId: 'show_1', position: 3 });
    // What the service issues verifies as its own kind.
    expect(users.verify(users.issue({ userId: 'usr_a', role: 'user' }))).toEqual({ userId: 'usr_a', role: 'user' });
    expect(room.verifyQueue(room.issueQueue({ userId: 'usr_a', showId: 'show_1', entryId: 'qe_1' }))).not.toBeNull();
    expect(room.verifyAdmission(room.issueAdmission({ userId: 'usr_a', showId: 'show_1', position: 3, expiresAtS: Math.floor(Date.now() / 1000) + 60 }).token)).not.toBeNull();
  });

  it('refuses a token without iss or aud, even signed with the right key', async () => {
    const users = new UserTokens(USER_SECRET, 60);
    const room = new RoomTokens(ROOM_SECRET);
    for (const o of [{}, { iss: 'boxoffice' }, { aud: 'boxoffice:user' }, { iss: 'elsewhere', aud: 'boxoffice:user' }]) {
      expect(users.verify(await sign(KEY.user, USER, o)), JSON.stringify(o)).toBeNull();
    }
    for (const o of [{}, { iss: 'boxoffice' }, { aud: 'boxoffice:queue' }]) {
      expect(room.verifyQueue(await sign(KEY.queue, ALL, o)), JSON.stringify(o)).toBeNull();
    }
    for (const o of [{}, { iss: 'boxoffice' }, { aud: 'boxoffice:admission' }]) {
      expect(room.verifyAdmission(await sign(KEY.admission, ALL, o)), JSON.stringify(o)).toBeNull();
    }
  });

  it('never takes one kind for another: neither its audience nor its key will do', async () => {
    const users = new UserTokens(USER_SECRET, 60);
    const room = new RoomTokens(ROOM_SECRET);
    const issuedQueue = room.issueQueue({ userId: 'usr_a', showId: 'show_1', entryId: 'qe_1' });
    const issuedAdmission = room.issueAdmission({ userId: 'usr_a', showId: 'show_1', position: 3, expiresAtS: Math.floor(Date.now() / 1000) + 60 }).token;
    expect(room.verifyAdmission(issuedQueue)).toBeNull();
    expect(room.verifyQueue(issuedAdmission)).toBeNull();
    // The right audience under another kind's key.
    expect(room.verifyAdmission(await sign(KEY.queue, ALL, { iss: 'boxoffice', aud: 'boxoffice:admission' }))).toBeNull();
    expect(room.verifyQueue(await sign(KEY.admission, ALL, { iss: 'boxoffice', aud: 'boxoffice:queue' }))).toBeNull();
    // The right key under another kind's audience.
    expect(room.verifyAdmission(await sign(KEY.admission, ALL, { iss: 'boxoffice', aud: 'boxoffice:queue' }))).toBeNull();
    expect(room.verifyQueue(await sign(KEY.queue, ALL, { iss: 'boxoffice', aud: 'boxoffice:admission' }))).toBeNull();
    // An audience list naming several kinds is no kind.
    const both = await new SignJWT(ALL).setProtectedHeader({ alg: 'HS256' }).setSubject('usr_a').setIssuer('boxoffice')
      .setAudience(['boxoffice:queue', 'boxoffice:admission']).setExpirationTime('1h').sign(KEY.queue);
    expect(room.verifyQueue(both)).toBeNull();
    // Room tokens are no bearer tokens, and the other way round (user and room secrets differ in the service, and here).
    const sameSecretUsers = new UserTokens(ROOM_SECRET, 60);
    expect(sameSecretUsers.verify(issuedQueue)).toBeNull();
    expect(room.verifyQueue(users.issue({ userId: 'usr_a', role: 'user' }))).toBeNull();
  });

  it('refuses a token verified (and remembered) before, once its exp has passed: bearer, queue and admission', async () => {
    const users = new UserTokens(USER_SECRET, 60);
    const room = new RoomTokens(ROOM_SECRET);
    const expS = Math.floor(Date.now() / 1000) + 1;
    const bearer = await sign(KEY.user, USER, { iss: 'boxoffice', aud: 'boxoffice:user', expSeconds: 1 });
    const queue = await sign(KEY.queue, QUEUE, { iss: 'boxoffice', aud: 'boxoffice:queue', expSeconds: 1 });
    const admission = room.issueAdmission({ userId: 'usr_a', showId: 'show_1', position: 3, expiresAtS: expS }).token;
    expect(users.verify(bearer)).not.toBeNull();
    expect(room.verifyQueue(queue)).not.toBeNull();
    expect(room.verifyAdmission(admission)).not.toBeNull();
    expect(admissionOf(room, admission, 'usr_a')).not.toBeNull();
    await sleepUntil(expS * 1000 + 50);
    expect(users.verify(bearer)).toBeNull();
    expect(room.verifyQueue(queue)).toBeNull();
    expect(room.verifyAdmission(admission)).toBeNull();
    expect(admissionOf(room, admission, 'usr_a')).toBeNull();
  });

  it('the gate refuses an admission past its expiry by its own clock, whatever the verifier says', () => {
    const room = new RoomTokens(ROOM_SECRET);
    const expS = Math.floor(Date.now() / 1000) + 60;
    const { token } = room.issueAdmission({ userId: 'usr_a', showId: 'show_1', position: 3, expiresAtS: expS });
    expect(admissionOf(room, token, 'usr_a', expS * 1000 - 1)).not.toBeNull();
    // The token verifies (now is before exp), but the gate's moment is past it.
    expect(room.verifyAdmission(token)).not.toBeNull();
    expect(admissionOf(room, token, 'usr_a', expS * 1000)).toBeNull();
    expect(admissionOf(room, token, 'usr_b', expS * 1000 - 1)).toBeNull();
  });
});
