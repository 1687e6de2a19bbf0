import { describe, expect, it } from 'vitest';
import { AccountLink } from '../../src/backoffice/views.js';

/**
 * An account without its name at hand is shown by a short id. Ids are UUIDv7: their first 8
 * digits are the creation time's high bits, the same for every account of the same minute, so the
 * short id is the random tail, and the full id is the link's title.
 */
describe('AccountLink', () => {
  it('two accounts created in the same minute read differently; the name when known', async () => {
    const first = '01a2506e-1111-7000-8000-0000c0ffee01';
    const second = '01a2506e-2222-7000-8000-0000c0ffee02';
    const html = [String(await AccountLink({ accountId: first })), String(await AccountLink({ accountId: second }))];
    expect(html).toEqual([
      `<a href="/backoffice/contas/${first}" title="${first}">…c0ffee01</a>`,
      `<a href="/backoffice/contas/${second}" title="${second}">…c0ffee02</a>`,
    ]);
    expect(String(await AccountLink({ accountId: first, name: 'Loja & Cia' }))).toBe(
      `<a href="/backoffice/contas/${first}" title="${first}">Loja &amp; Cia</a>`,
    );
  });
});
