import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allowsInfraction, INFRACTION, INFRACTION_STATUSES, OPEN_INFRACTION_STATUSES } from '../../src/infractions/states.js';
import { CANONICAL_EVENTS, EVENT_CATEGORIES } from '../../src/webhooks/events.js';

/** The MED case's transition table, and migration 006's CHECK holding the same statuses. */
const transitions = Object.entries(INFRACTION);

describe('the MED case transition table', () => {
  it('goes from and to case statuses; only `open` creates', () => {
    for (const [name, transition] of transitions) {
      expect(INFRACTION_STATUSES, name).toContain(transition.to);
      for (const from of transition.from) expect(INFRACTION_STATUSES, name).toContain(from);
    }
    expect(transitions.filter(([, transition]) => transition.from.length === 0).map(([name]) => name)).toEqual(['open']);
  });

  it('records only dispute and chargeback events; closing against the merchant records the chargeback', () => {
    const caseEvents: readonly string[] = [...EVENT_CATEGORIES.dispute, ...EVENT_CATEGORIES.chargeback];
    for (const [name, transition] of transitions) {
      for (const event of transition.events) {
        expect(CANONICAL_EVENTS, name).toContain(event);
        expect(caseEvents, name).toContain(event);
      }
    }
    expect(INFRACTION.open.events).toEqual(['transaction.infraction', 'transaction.blocked']);
    expect(INFRACTION.accept.events).toEqual(['transaction.chargeback']);
  });

  it('closed cases take no move; running ones are exactly the open statuses', () => {
    for (const [name, transition] of transitions) {
      expect(allowsInfraction(transition, 'accepted'), name).toBe(false);
      expect(allowsInfraction(transition, 'rejected'), name).toBe(false);
    }
    expect([...INFRACTION.reject.from].sort()).toEqual([...OPEN_INFRACTION_STATUSES].sort());
    expect(allowsInfraction(INFRACTION.defend, 'in_defense')).toBe(false);
    expect(allowsInfraction(INFRACTION.analyze, 'in_defense')).toBe(true);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(INFRACTION)).toBe(true);
    for (const [name, transition] of transitions) expect(Object.isFrozen(transition), name).toBe(true);
    expect(Reflect.set(INFRACTION.defend, 'to', 'accepted')).toBe(false);
  });
});

describe('migration 006: the CHECK and the running-case index list the table statuses', () => {
  const migration = readFileSync(new URL('../../src/migrations/006_refunds_and_med.sql', import.meta.url), 'utf8');
  const listAfter = (prefix: string): string[] => {
    const start = migration.indexOf(prefix);
    expect(start, prefix).toBeGreaterThanOrEqual(0);
    const list = /\(([^)]*)\)/.exec(migration.slice(start + prefix.length - 1))?.[1] ?? '';
    return list.split(',').map((item) => item.trim().replace(/^'|'$/g, ''));
  };

  it('status CHECK: exactly INFRACTION_STATUSES', () => {
    expect(listAfter('status text NOT NULL CHECK (status IN (').sort()).toEqual([...INFRACTION_STATUSES].sort());
  });

  it('one running case per charge: exactly OPEN_INFRACTION_STATUSES', () => {
    expect(listAfter('infractions_one_open_per_charge ON infractions (transaction_id) WHERE status IN (').sort()).toEqual([...OPEN_INFRACTION_STATUSES].sort());
  });
});
