import { describe, expect, it } from 'vitest';
import { parseListFilter } from '../../src/pages/filters.js';
import { InvalidRequestError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { CHARGE_STATUSES } from '../../src/platform/schema.js';

/** The list filters of the dashboard: days are São Paulo days (UTC−3); what is not a known status or a real date is refused. */
describe('parseListFilter', () => {
  it('reads a period as whole São Paulo days: from 03:00 UTC of the first to 03:00 UTC after the last', () => {
    expect(parseListFilter({ status: 'paid', from: '2026-11-09', to: '2026-11-10' }, CHARGE_STATUSES)).toEqual({
      status: 'paid',
      createdFrom: new Date('2026-11-09T03:00:00.000Z'),
      createdTo: new Date('2026-11-11T03:00:00.000Z'),
    });
  });

  it('leaves out what is empty', () => {
    expect(parseListFilter({ status: '', from: '', to: '' }, CHARGE_STATUSES)).toEqual({ status: undefined, createdFrom: undefined, createdTo: undefined });
  });

  it.each([
    [{ status: 'pago', from: '', to: '' }, messages.filterStatusInvalid],
    [{ status: 'processing', from: '', to: '' }, messages.filterStatusInvalid], // a withdrawal status, not a charge's
    [{ status: '', from: '2026-02-30', to: '' }, messages.filterDateInvalid],
    [{ status: '', from: '', to: '2026-13-01' }, messages.filterDateInvalid],
    [{ status: '', from: '09/11/2026', to: '' }, messages.filterDateInvalid],
    [{ status: '', from: '2026-11-9', to: '' }, messages.filterDateInvalid],
  ])('refuses %j with its message', (form, message) => {
    expect(() => parseListFilter(form, CHARGE_STATUSES)).toThrow(new InvalidRequestError(message));
  });
});
