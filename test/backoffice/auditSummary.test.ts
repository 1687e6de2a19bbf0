import { describe, expect, it } from 'vitest';
import { AuditPage, type AuditEntryView } from '../../src/backoffice/auditViews.js';
import { backofficeSite } from '../../src/backoffice/views.js';

/**
 * Auditoria's summary of what changed, as the page renders it: fields and values named in
 * Portuguese, never the API's paths ("fees.pixIn.bps") nor its words ("approved").
 */
const ACCOUNT_ID = '01a2506e-0000-7000-8000-00000000abcd';

async function summaryOf(changes: AuditEntryView['changes']): Promise<string[]> {
  const entry: AuditEntryView = {
    at: new Date('2026-12-01T12:00:00Z'),
    actor: 'admin-token',
    action: 'PATCH /admin/v1/accounts/:accountId',
    accountId: ACCOUNT_ID,
    accountName: 'Loja',
    operatorEmail: null,
    objectId: ACCOUNT_ID,
    changes,
  };
  const html = String(
    await AuditPage({ context: { csrfToken: 't', site: backofficeSite(undefined) }, entries: [entry], filter: { accountId: '', actor: '' } }),
  );
  const list = /<ul class="changes">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((match) => (match[1] ?? '').replace(/<[^>]+>/g, '').replace(/&gt;/g, '>'));
}

describe('Auditoria names fields and values in Portuguese', () => {
  it('a KYC decision and a fee change: "KYC: pendente → aprovado", "Tarifa PIX recebido (bps): 99 → 150"', async () => {
    const before = {
      kycStatus: 'pending',
      withdrawalMode: 'automatic',
      fees: { pixIn: { bps: 99, fixedCents: 0 }, withdrawal: { fixedCents: 100, maxCents: 0 } },
    };
    const input = {
      kycStatus: 'approved',
      withdrawalMode: 'manual',
      fees: { pixIn: { bps: 150, fixedCents: 10 }, withdrawal: { fixedCents: 200, maxCents: 500 } },
    };
    expect(await summaryOf({ input, before, after: input })).toEqual([
      'KYC: pendente → aprovado',
      'modo de saque: automático → manual',
      'Tarifa PIX recebido (bps): 99 → 150',
      'Tarifa PIX recebido (fixa): R$ 0,00 → R$ 0,10',
      'Tarifa de saque (fixa): R$ 1,00 → R$ 2,00',
      'Tarifa de saque (máxima): R$ 0,00 → R$ 5,00',
    ]);
  });

  it('an account created approved: "KYC: aprovado"; a rejection: "KYC: recusado"', async () => {
    expect(await summaryOf({ input: { name: 'Loja', kycStatus: 'approved' } })).toEqual(['nome: Loja', 'KYC: aprovado']);
    expect(await summaryOf({ input: { kycStatus: 'rejected' } })).toEqual(['KYC: recusado']);
  });
});
