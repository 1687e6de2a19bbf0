import type { MenuGroup, Site } from '../pages/components.js';

/**
 * The menu in its groups (DESIGN.md §24); a page that does not exist yet (Links, Clientes,
 * Pagamentos, Subcontas) joins its group as one more item.
 */
const MENU: readonly MenuGroup[] = [
  { items: [{ href: '/dashboard', title: 'Início' }] },
  {
    title: 'Receber',
    items: [
      { href: '/dashboard/cobrancas', title: 'Cobranças' },
      { href: '/dashboard/cobrancas/vencimento', title: 'Vencimento' },
      { href: '/dashboard/qr-estaticos', title: 'QR estáticos' },
      { href: '/dashboard/recorrencias', title: 'Recorrências' },
    ],
  },
  {
    title: 'Pagar',
    items: [
      { href: '/dashboard/saques', title: 'Saques' },
      { href: '/dashboard/destinatarios', title: 'Destinatários' },
    ],
  },
  {
    title: 'Conta',
    items: [
      { href: '/dashboard/transacoes', title: 'Transações' },
      { href: '/dashboard/extratos', title: 'Extratos' },
      { href: '/dashboard/disputas', title: 'Disputas' },
    ],
  },
  {
    title: 'Desenvolvedores',
    items: [
      { href: '/dashboard/chaves', title: 'Chaves de API' },
      { href: '/dashboard/webhooks', title: 'Webhooks' },
    ],
  },
  { items: [{ href: '/dashboard/equipe', title: 'Equipe' }] },
  { items: [{ href: '/dashboard/seguranca', title: 'Segurança' }] },
];

export const DASHBOARD_SITE: Site = { base: '/dashboard', brand: 'Painel PIX', menu: MENU };
