// Redis Cluster's key → slot rule (CRC16/XMODEM of the key, or of its hash tag —
// the text between the first `{` and the next `}` when not empty — modulo 16384),
// and hash tags chosen to land on given slots. Pure; test/waiting-room/
// redis-cluster.test.ts checks it against the cluster's own CLUSTER KEYSLOT.

export const SLOTS = 16_384;

const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

/** The cluster slot of a key. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key, 'utf8')) % SLOTS;
}

const tags = new Map<string, string>();

/**
 * A short hash tag (`<stem><n>`) whose slot is `slot`: the first n that lands
 * there. About 16,384 tries on average (a few ms); cached.
 */
export function tagForSlot(stem: string, slot: number): string {
  const cacheKey = `${stem}/${slot}`;
  const hit = tags.get(cacheKey);
  if (hit !== undefined) return hit;
  for (let n = 0; n < 50 * SLOTS; n++) {
    const tag = `${stem}${n}`;
    if (keySlot(tag) === slot) {
      tags.set(cacheKey, tag);
      return tag;
    }
  }
  throw new Error(`no hash tag for slot ${slot}`);
}
