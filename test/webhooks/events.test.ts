import { describe, it, expect } from 'vitest';
import { attemptVerdict } from '../../src/webhooks/dispatcher.js';
import {
  CANONICAL_EVENTS,
  CARRIES_DEADLINE_IN,
  CARRIES_INFRACTION,
  DISPUTE_ADDITIONS,
  EVENT_CATEGORIES,
  FORMER_EVENT_NAMES,
  GATEWAY_EVENTS,
  RECURRENCE_EVENTS,
  TRANSACTION_EXTENSION_EVENTS,
  normalizeEventFilter,
  type TransactionEventName,
} from '../../src/webhooks/events.js';

/** The transaction events the categories hold: the 21 of the spec, then the gateway's own (DESIGN.md §19). */
const TRANSACTION_EVENTS = [...CANONICAL_EVENTS, ...TRANSACTION_EXTENSION_EVENTS];

/** DESIGN.md §5, "Event categories" (the 21); §19's events beyond them join `dispute` through DISPUTE_ADDITIONS. */
const DESIGN_CATEGORIES: Record<string, readonly TransactionEventName[]> = {
  cashin: ['transaction.paid', 'transaction.expired', 'transaction.failed', 'transaction.cancelled'],
  cashout: [
    'transfer.created',
    'transfer.processing',
    'transfer.pending_approval',
    'transfer.approved',
    'transfer.rejected',
    'transfer.failed',
    'transfer.cancelled',
    'transfer.paid',
  ],
  refund: ['transaction.refunded', 'transaction.partially_refunded', 'transfer.refunded', 'transfer.partially_refunded'],
  dispute: ['transaction.infraction', 'transaction.dispute', 'transaction.protest', 'transaction.blocked'],
  chargeback: ['transaction.chargeback'],
};

const sorted = (names: readonly string[]) => [...names].sort();

describe('event catalog', () => {
  it('has 21 distinct canonical names', () => {
    expect(CANONICAL_EVENTS).toHaveLength(21);
    expect(new Set(CANONICAL_EVENTS).size).toBe(21);
  });

  it('has the 5 categories of the design', () => {
    expect(sorted(Object.keys(EVENT_CATEGORIES))).toEqual(sorted(Object.keys(DESIGN_CATEGORIES)));
  });

  it.each(Object.entries(DESIGN_CATEGORIES))('category %s has the members of the design', (category, members) => {
    expect(sorted(EVENT_CATEGORIES[category as keyof typeof EVENT_CATEGORIES])).toEqual(sorted(members));
  });

  it('has only transaction events (canonical or the gateway’s own) as category members', () => {
    for (const members of Object.values(EVENT_CATEGORIES)) {
      for (const member of members) expect(TRANSACTION_EVENTS).toContain(member);
    }
  });

  it('puts each transaction event in exactly one category (those beyond the 21 in dispute)', () => {
    const members = [...Object.values(EVENT_CATEGORIES).flat(), ...DISPUTE_ADDITIONS];
    expect(members).toHaveLength(TRANSACTION_EVENTS.length);
    expect(sorted(members)).toEqual(sorted(TRANSACTION_EVENTS));
  });

  it('maps each former name to a canonical name, never to itself', () => {
    for (const [former, canonical] of Object.entries(FORMER_EVENT_NAMES)) {
      expect(CANONICAL_EVENTS).toContain(canonical);
      expect(CANONICAL_EVENTS).not.toContain(former);
      expect(Object.keys(EVENT_CATEGORIES)).not.toContain(former);
    }
  });
});

describe('normalizeEventFilter', () => {
  it('gives no filters and no names for an empty list', () => {
    expect(normalizeEventFilter([])).toEqual({ filters: [], eventNames: [] });
  });

  it('keeps a canonical name', () => {
    expect(normalizeEventFilter(['transfer.paid'])).toEqual({ filters: ['transfer.paid'], eventNames: ['transfer.paid'] });
  });

  it.each(CANONICAL_EVENTS.map((name) => [name]))('accepts %s', (name) => {
    expect(normalizeEventFilter([name])).toEqual({ filters: [name], eventNames: [name] });
  });

  it.each(Object.entries(DESIGN_CATEGORIES))('expands category %s to exactly its members (dispute with transaction.dispute_deadline)', (category, members) => {
    const result = normalizeEventFilter([category]);
    const selected: readonly string[] = [...members, ...(category === 'dispute' ? DISPUTE_ADDITIONS : [])];
    expect(result).toEqual({ filters: [category], eventNames: GATEWAY_EVENTS.filter((name) => selected.includes(name)) });
  });

  it.each(Object.entries(FORMER_EVENT_NAMES))('maps former name %s to %s', (former, canonical) => {
    expect(normalizeEventFilter([former])).toEqual({ filters: [canonical], eventNames: [canonical] });
  });

  it('removes duplicates, including a former name and its canonical name', () => {
    expect(normalizeEventFilter(['transfer.paid', 'TRANSFER_PAID', 'transfer.paid'])).toEqual({
      filters: ['transfer.paid'],
      eventNames: ['transfer.paid'],
    });
    expect(normalizeEventFilter(['refund', 'refund'])).toEqual({
      filters: ['refund'],
      eventNames: ['transaction.refunded', 'transaction.partially_refunded', 'transfer.refunded', 'transfer.partially_refunded'],
    });
  });

  it('keeps a category and a name inside it as two filters but one set of names', () => {
    const result = normalizeEventFilter(['chargeback', 'transaction.chargeback', 'chargeback.applied']);
    expect(result).toEqual({ filters: ['chargeback', 'transaction.chargeback'], eventNames: ['transaction.chargeback'] });
  });

  it('returns the names in GATEWAY_EVENTS order whatever the input order', () => {
    const result = normalizeEventFilter(['transfer.refunded', 'transaction.paid', 'dispute', 'transfer.created']);
    expect(result).toEqual({
      filters: ['transfer.refunded', 'transaction.paid', 'dispute', 'transfer.created'],
      eventNames: [
        'transaction.paid',
        'transaction.infraction',
        'transaction.dispute',
        'transaction.protest',
        'transaction.blocked',
        'transfer.created',
        'transfer.refunded',
        'transaction.dispute_deadline',
        'transaction.hold_released',
      ],
    });
  });

  it('selects all 21 names and the transaction events beyond them from the 5 categories', () => {
    expect(normalizeEventFilter(Object.keys(EVENT_CATEGORIES))).toEqual({
      filters: Object.keys(EVENT_CATEGORIES),
      eventNames: [...CANONICAL_EVENTS, ...TRANSACTION_EXTENSION_EVENTS],
    });
  });

  it('returns the first unknown entry', () => {
    expect(normalizeEventFilter(['transaction.paid', 'nope', 'also.nope'])).toEqual({ unknown: 'nope' });
    expect(normalizeEventFilter(['', 'transaction.paid'])).toEqual({ unknown: '' });
  });

  it.each(['Transaction.Paid', 'TRANSACTION.PAID', 'CASHIN', 'transfer_paid', ' transaction.paid', 'transaction.paid ', 'transaction.*'])(
    'is case- and space-sensitive: %j is unknown',
    (entry) => {
      expect(normalizeEventFilter([entry])).toEqual({ unknown: entry });
    },
  );

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('treats the object property %s as unknown', (entry) => {
    expect(normalizeEventFilter([entry])).toEqual({ unknown: entry });
  });
});

describe('attemptVerdict', () => {
  const answer = (status: number | null, refused?: true) => ({
    status,
    error: status === null ? 'timeout' : null,
    durationMs: 10,
    ...(refused ? { refused } : {}),
  });

  it.each([200, 201, 202, 204, 299])('%i is delivered', (status) => {
    expect(attemptVerdict(answer(status))).toBe('delivered');
  });

  it.each([500, 502, 503, 504, 599, 408, 429])('%i is retried', (status) => {
    expect(attemptVerdict(answer(status))).toBe('retry');
  });

  it('no status (timeout or network error) is retried', () => {
    expect(attemptVerdict(answer(null))).toBe('retry');
  });

  it.each([100, 199, 300, 301, 302, 304, 307, 308, 400, 401, 403, 404, 409, 410, 413, 422])('%i is final', (status) => {
    expect(attemptVerdict(answer(status))).toBe('final');
  });

  it('a refused URL is final, even with no status', () => {
    expect(attemptVerdict({ status: null, error: 'url deve apontar para um endereço público.', durationMs: 0, refused: true })).toBe('final');
    expect(attemptVerdict(answer(503, true))).toBe('final');
  });
});

describe('Pix Automático events (beyond the 21)', () => {
  it('filters by their category and by name, in catalog order after the canonical ones', () => {
    expect(normalizeEventFilter(['recurrence'])).toEqual({ filters: ['recurrence'], eventNames: [...RECURRENCE_EVENTS] });
    expect(normalizeEventFilter(['recurrence.cancelled', 'transaction.paid'])).toEqual({
      filters: ['recurrence.cancelled', 'transaction.paid'],
      eventNames: ['transaction.paid', 'recurrence.cancelled'],
    });
    for (const name of RECURRENCE_EVENTS) expect(CANONICAL_EVENTS).not.toContain(name);
    expect(GATEWAY_EVENTS).toEqual([...CANONICAL_EVENTS, ...TRANSACTION_EXTENSION_EVENTS, ...RECURRENCE_EVENTS]);
  });
});

describe('transaction.dispute_deadline (beyond the 21)', () => {
  it('is not canonical, belongs to the dispute category, carries the case and deadlineIn', () => {
    expect(TRANSACTION_EXTENSION_EVENTS).toEqual(['transaction.dispute_deadline', 'transaction.hold_released']);
    expect(CANONICAL_EVENTS).not.toContain('transaction.dispute_deadline');
    expect(DISPUTE_ADDITIONS).toEqual(['transaction.dispute_deadline', 'transaction.hold_released']);
    expect(CARRIES_INFRACTION.has('transaction.dispute_deadline')).toBe(true);
    expect([...CARRIES_DEADLINE_IN]).toEqual(['transaction.dispute_deadline']);
  });

  it('is selected by its name and by dispute, not by the other categories', () => {
    expect(normalizeEventFilter(['transaction.dispute_deadline'])).toEqual({
      filters: ['transaction.dispute_deadline'],
      eventNames: ['transaction.dispute_deadline'],
    });
    expect(normalizeEventFilter(['dispute'])).toMatchObject({ eventNames: expect.arrayContaining(['transaction.dispute_deadline']) });
    for (const category of ['cashin', 'cashout', 'refund', 'chargeback', 'recurrence']) {
      const selected = normalizeEventFilter([category]);
      expect('eventNames' in selected && selected.eventNames, category).not.toContain('transaction.dispute_deadline');
    }
  });
});
