import type { MenuItem, Site } from '../pages/components.js';

/** The pages of the menu, in its order (DESIGN.md §10). */
const MENU: readonly MenuItem[] = [
  { href: '/dashboard', title: 'Início' },
  { href: '/dashboard/transacoes', title: 'Transações' },
  { href: '/dashboard/cobrancas', title: 'Cobranças' },
  { href: '/dashboard/saques', title: 'Saques' },
  { href: '/dashboard/destinatarios', title: 'Destinatários' },
  { href: '/dashboard/disputas', title: 'Disputas' },
  { href: '/dashboard/chaves', title: 'Chaves de API' },
  { href: '/dashboard/webhooks', title: 'Webhooks' },
  { href: '/dashboard/equipe', title: 'Equipe' },
  { href: '/dashboard/seguranca', title: 'Segurança' },
];

export const DASHBOARD_SITE: Site = { base: '/dashboard', brand: 'Painel PIX', menu: MENU };
