import { describe, expect, it } from 'vitest';
import { Breaker } from '../../src/provider/health.js';

/** The breaker of one provider (docs/providers.md "Health and the breaker"), on a clock the test moves. */
function breakerAt() {
  let now = 1_000_000;
  const breaker = new Breaker(undefined, () => now);
  return { breaker, advance: (ms: number) => (now += ms) };
}

describe('a provider’s breaker', () => {
  it('opens after 3 consecutive failures; a success in between starts the count again', () => {
    const { breaker } = breakerAt();
    breaker.record('failure', 5);
    breaker.record('failure', 5);
    breaker.record('success', 5);
    breaker.record('failure', 5);
    breaker.record('failure', 5);
    expect(breaker.isClosed()).toBe(true);
    breaker.record('failure', 5, 'connection refused');
    expect(breaker.isClosed()).toBe(false);
    expect(breaker.state).toBe('down');
    expect(breaker.snapshot().lastError).toEqual({ message: 'connection refused', at: new Date(1_000_000) });
  });

  it('lets one probe through after 2 s; a failed probe opens it for twice as long, a successful one closes it', () => {
    const { breaker, advance } = breakerAt();
    for (let index = 0; index < 3; index++) breaker.record('failure', 5);
    expect(breaker.takeProbe()).toBe(false);
    advance(2_000);
    expect(breaker.takeProbe()).toBe(true);
    expect(breaker.takeProbe()).toBe(false); // one probe at a time
    breaker.record('failure', 5);
    advance(2_000);
    expect(breaker.takeProbe()).toBe(false); // open for 4 s now
    advance(2_000);
    expect(breaker.takeProbe()).toBe(true);
    breaker.record('success', 5);
    expect(breaker.state).toBe('up');
    expect(breaker.isClosed()).toBe(true);
  });

  it('a probe that never reports frees its slot after a minute', () => {
    const { breaker, advance } = breakerAt();
    for (let index = 0; index < 3; index++) breaker.record('failure', 5);
    advance(2_000);
    expect(breaker.takeProbe()).toBe(true);
    advance(30_000);
    expect(breaker.takeProbe()).toBe(false);
    advance(30_000);
    expect(breaker.takeProbe()).toBe(true);
  });

  it('opens at half of the last calls failing, is degraded above 10%, and reports latency percentiles', () => {
    const { breaker } = breakerAt();
    for (let index = 0; index < 18; index++) breaker.record(index % 9 === 0 ? 'failure' : 'success', index + 1);
    expect(breaker.state).toBe('degraded');
    const { latencyMsP50, latencyMsP99 } = breaker.snapshot();
    expect([latencyMsP50, latencyMsP99]).toEqual([9, 18]);
    const alternating = breakerAt().breaker;
    for (let index = 0; index < 11; index++) alternating.record(index % 2 === 0 ? 'failure' : 'success', 1);
    expect(alternating.state).toBe('down');
    expect(breakerAt().breaker.snapshot()).toEqual({ state: 'up', lastError: null, latencyMsP50: null, latencyMsP99: null });
  });
});
