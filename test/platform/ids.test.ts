import { describe, expect, it } from 'vitest';
import { derivedId, isId, newId } from '../../src/platform/ids.js';

describe('derivedId', () => {
  it('is the same for one parent and label, another for another label or parent, and a UUID v7 with the parent’s time', () => {
    const parent = newId();
    const first = derivedId(parent, 'cycle-1');
    expect(derivedId(parent, 'cycle-1')).toBe(first);
    expect(derivedId(parent, 'cycle-2')).not.toBe(first);
    expect(derivedId(newId(), 'cycle-1')).not.toBe(first);
    for (let cycle = 1; cycle <= 200; cycle++) expect(isId(derivedId(parent, `cycle-${cycle}`))).toBe(true);
    expect(first.slice(0, 13)).toBe(parent.slice(0, 13));
  });
});
