import { createHash, randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Random bytes drawn 4 KiB at a time: uuid draws 16 per id from the system, ~6% of a withdrawal's CPU (four ids each). */
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomBytes16(): Uint8Array {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 16;
  return pool.subarray(poolOffset - 16, poolOffset);
}

/** The last id's millisecond and counter, so that ids of one process sort in the order they were made (RFC 9562 method 1). */
const last = { msecs: -1, seq: 0 };

/** Identifiers are UUID v7 (time-ordered: good index locality), canonical lowercase. */
export function newId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > last.msecs) {
    last.msecs = now;
    // 31 random bits leave room to count up within the millisecond.
    last.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    last.seq = (last.seq + 1) | 0;
    if (last.seq === 0) last.msecs++;
  }
  return uuidv7({ random, msecs: last.msecs, seq: last.seq });
}

/**
 * An id that is always the same for one parent id and label (a recurrence's cycle: `cycle-3`), shaped
 * as a UUID v7: the parent's millisecond, then 74 bits of SHA-256 of both. A retried step that must
 * name the same thing each time (a cycle's charge at its PSP) derives its id rather than draw one.
 */
export function derivedId(parentId: string, label: string): string {
  const hash = createHash('sha256').update(`${parentId}:${label}`).digest('hex');
  const time = parentId.replaceAll('-', '').slice(0, 12);
  const variant = ((Number.parseInt(hash[3]!, 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hash.slice(0, 3)}-${variant}${hash.slice(4, 7)}-${hash.slice(7, 19)}`;
}

const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isId = (value: string): boolean => UUID_V7_PATTERN.test(value);
