/** The only source of "now" for business rules, so tests can move time (windows, retention, expiry). */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

/** When a step that failed `failures` times in a row is tried again: `firstMs` from now, doubling with each failure, at most `maxMs`. */
export function retryTime(clock: Clock, failures: number, { firstMs, maxMs }: { firstMs: number; maxMs: number }): Date {
  return new Date(clock.now().getTime() + Math.min(firstMs * 2 ** failures, maxMs));
}

/** A clock tests can move forward. */
export class ManualClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
