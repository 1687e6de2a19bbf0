import { contentsToString, escapeHtml, type Children } from '@kitajs/html';
import { formatBrl } from '../messages.js';
import { FAVICON_HREF } from '../platform/favicon.js';
import { PIX_KEY_TYPES } from '../pix/pixKeys.js';
import type { ChargeStatus, CycleStatus, RecurrenceStatus } from '../platform/schema.js';

/** Dates as a person in Brazil reads them (DESIGN.md §10: America/Sao_Paulo). */
const dateFormat = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
export const formatDate = (at: Date | number): string => dateFormat.format(typeof at === 'number' ? new Date(at) : at);
/** A calendar day of the API (`AAAA-MM-DD`, America/Sao_Paulo) as a person in Brazil writes it: `DD/MM/AAAA`. */
export const formatDay = (day: string): string => day.split('-').reverse().join('/');

/** One entry of a site's menu; `count` is a queue's length (the back-office). */
export type MenuItem = { href: string; title: string; count?: number | undefined };

/**
 * A group of the menu (DESIGN.md §24: Receber, Pagar, Conta…) under its title; a group without a
 * title is a page of its own at the menu's top level (Início, Equipe). A new page is one more item.
 */
export type MenuGroup = { title?: string | undefined; items: readonly MenuItem[] };

/**
 * Which site a page belongs to: the merchant dashboard or the service team's back-office; `banner`
 * is what every page of the request shows above its content (the dashboard's MED deadline).
 */
export type Site = { base: '/dashboard' | '/backoffice'; brand: string; menu: readonly MenuGroup[]; banner?: JSX.Element | undefined };

/**
 * What every page knows of the request: the signed-in user (none on the sign-in pages), the form
 * token, its site (the dashboard when not said) and its path (the menu marks the current page).
 */
export type PageContext = { csrfToken: string; user?: { email: string; role: string } | undefined; site: Site; path?: string | undefined };

/**
 * The menu item of the page at `path`: the one whose address is the longest start of it (a charge's
 * page is under Cobranças, Vencimento under its own item); a site's home only for itself.
 */
function currentItem(menu: readonly MenuGroup[], base: string, path: string | undefined): MenuItem | undefined {
  if (path === undefined) return undefined;
  const items = menu.flatMap((group) => group.items);
  const matches = items.filter((item) => path === item.href || (item.href !== base && path.startsWith(`${item.href}/`)));
  return matches.sort((a, b) => b.href.length - a.href.length)[0];
}

const MenuLink = (props: { item: MenuItem; current: MenuItem | undefined; path: string | undefined }) => (
  <li>
    <a href={props.item.href} aria-current={props.item === props.current ? (props.item.href === props.path ? 'page' : 'true') : undefined}>
      <span safe>{props.item.title}</span>
      {props.item.count ? (
        <span class="count" aria-label={`${props.item.count} na fila`} safe>
          {String(props.item.count)}
        </span>
      ) : (
        ''
      )}
    </a>
  </li>
);

/**
 * The site's menu: on a phone one "Menu" button (a details element: Enter and Space open it, no
 * script needed), on a wider screen always open (CSS, and app.js keeps `open` in step for screen
 * readers), its groups side by side, each under its title.
 */
function Menu(props: { context: PageContext }) {
  const { site, path, csrfToken } = props.context;
  const current = currentItem(site.menu, site.base, path);
  return (
    <details class="menu-fold">
      <summary>Menu</summary>
      <ul class="menu">
        {site.menu.map((group, index) =>
          group.title ? (
            <li class="group">
              <span class="group-title" id={`menu-grupo-${index}`} safe>
                {group.title}
              </span>
              <ul aria-labelledby={`menu-grupo-${index}`}>
                {group.items.map((item) => (
                  <MenuLink item={item} current={current} path={path} />
                ))}
              </ul>
            </li>
          ) : (
            <>
              {group.items.map((item) => (
                <MenuLink item={item} current={current} path={path} />
              ))}
            </>
          ),
        )}
        <li class="signout">
          <form method="post" action={`${site.base}/sair`}>
            <CsrfField token={csrfToken} />
            <button type="submit" class="link">
              Sair
            </button>
          </form>
        </li>
      </ul>
    </details>
  );
}

/** The API's statuses as the dashboard names them; the API's own word stays in the page's code for support. */
const STATUS_NAMES: Record<string, string> = {
  pending: 'Aguardando pagamento',
  paid: 'Paga',
  expired: 'Expirada',
  cancelled: 'Cancelada',
  failed: 'Falhou',
  refunded: 'Devolvida',
  partially_refunded: 'Devolvida em parte',
  pending_approval: 'Aguardando aprovação',
  processing: 'Em processamento',
  failed_unknown: 'Em verificação',
  pending_review: 'Em análise',
  active: 'Aprovado',
  rejected: 'Recusado',
  removed: 'Removido',
  deactivated: 'Desativado',
};
const WITHDRAWAL_STATUS_NAMES: Record<string, string> = {
  paid: 'Pago',
  cancelled: 'Cancelado',
  refunded: 'Devolvido',
  partially_refunded: 'Devolvido em parte',
};
const REFUND_STATUS_NAMES: Record<string, string> = { refunded: 'Devolvido', processing: 'Em processamento', failed: 'Falhou' };
const INFRACTION_STATUS_NAMES: Record<string, string> = {
  open: 'Aberta',
  in_defense: 'Defesa enviada',
  under_analysis: 'Em análise',
  accepted: 'Aceita: valor devolvido',
  rejected: 'Rejeitada: valor liberado',
};

/** A static QR code has no status in the API (`active`, a boolean): the pages name its two states. */
const STATIC_QR_STATUS_NAMES: Record<string, string> = { active: 'Ativo', deactivated: 'Desativado' };

/** A Pix Automático recurrence (docs/recurrences.md, "States"): every status named. */
const RECURRENCE_STATUS_NAMES: Record<RecurrenceStatus, string> = {
  created: 'Criada',
  awaiting_authorization: 'Aguardando autorização',
  authorized: 'Autorizada',
  refused: 'Recusada pelo pagador',
  expired: 'Expirada',
  cancelled: 'Cancelada',
};
/** A recurrence's cycle: its charge's status (the payer's bank debits it), or skipped (no charge). */
const CYCLE_STATUS_NAMES: Record<ChargeStatus | Exclude<CycleStatus, 'charged'>, string> = {
  pending: 'Aguardando débito',
  paid: 'Pago',
  expired: 'Expirado',
  cancelled: 'Cancelado',
  failed: 'Falhou',
  refunded: 'Devolvido',
  partially_refunded: 'Devolvido em parte',
  skipped: 'Pulado',
};

const OWN_NAMES: Record<'charge' | 'withdrawal' | 'refund' | 'infraction' | 'staticQr' | 'recurrence' | 'cycle', Record<string, string>> = {
  charge: {},
  withdrawal: WITHDRAWAL_STATUS_NAMES,
  refund: REFUND_STATUS_NAMES,
  infraction: INFRACTION_STATUS_NAMES,
  staticQr: STATIC_QR_STATUS_NAMES,
  recurrence: RECURRENCE_STATUS_NAMES,
  cycle: CYCLE_STATUS_NAMES,
};

export function statusName(status: string, of?: keyof typeof OWN_NAMES): string {
  return (of ? OWN_NAMES[of][status] : undefined) ?? STATUS_NAMES[status] ?? status;
}

/** A status in Portuguese, with the API's value beside it for whoever reads the API too. */
export function Status(props: { status: string; of?: keyof typeof OWN_NAMES }) {
  const name = statusName(props.status, props.of);
  return (
    <span class={`status status-${props.status}`} title={props.status} safe>
      {name}
    </span>
  );
}

/** An amount as `R$ 1.234,56` that never breaks between "R$" and its digits (the text keeps the API's plain space). */
export const Money = (props: { cents: number }) => (
  <span class="money" safe>
    {formatBrl(props.cents)}
  </span>
);

export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

export function Layout(props: { title: string; context: PageContext; children?: Children }) {
  const { site } = props.context;
  return (
    <>
      {'<!doctype html>'}
      <html lang="pt-BR">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{`${props.title} · ${site.brand}`}</title>
          <link rel="icon" type="image/svg+xml" href={FAVICON_HREF} />
          <link rel="stylesheet" href={`${site.base}/assets/app.css`} />
          <script src={`${site.base}/assets/app.js`} defer></script>
        </head>
        <body>
          <a class="skip" href="#conteudo">
            Pular para o conteúdo
          </a>
          <header>
            <nav aria-label="Principal">
              <span class="brand" safe>
                {site.brand}
              </span>
              {props.context.user ? <Menu context={props.context} /> : ''}
            </nav>
          </header>
          <main id="conteudo">
            {props.context.user && site.banner ? site.banner : ''}
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

export const Alert = ({ message }: { message?: string | undefined }) =>
  message ? (
    <p class="alert" role="alert" safe>
      {message}
    </p>
  ) : (
    ''
  );

export const Notice = ({ message }: { message?: string | undefined }) =>
  message ? (
    <p class="notice" role="status" safe>
      {message}
    </p>
  ) : (
    ''
  );

/** The 6-digit TOTP code field. */
export const CodeField = () => (
  <label>
    Código do aplicativo autenticador
    <input name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required />
  </label>
);

/** The 6-digit TOTP code, posted to `action`. */
export const CodeForm = (props: { action: string; submit: string; csrfToken: string }) => (
  <form class="stack" method="post" action={props.action}>
    <CsrfField token={props.csrfToken} />
    <CodeField />
    <button type="submit" safe>
      {props.submit}
    </button>
  </form>
);

/** TOTP enrolment: the QR image and the key as text, then the first code confirms it at `action`. */
export const TotpEnrolment = (props: { enrolment: { secret: string; qrDataUrl: string }; action: string; submit: string; csrfToken: string }) => (
  <>
    <p>Leia o QR com o aplicativo autenticador (ou digite a chave) e confirme com o código que ele mostrar.</p>
    <img src={props.enrolment.qrDataUrl} width="200" height="200" alt="QR para o aplicativo autenticador" />
    <p>
      Chave:{' '}
      <code class="secret" safe>
        {props.enrolment.secret}
      </code>
    </p>
    <CodeForm action={props.action} submit={props.submit} csrfToken={props.csrfToken} />
  </>
);

/** A secret shown this once (an API key, a webhook signing secret), with what it is. */
export const ShownOnce = (props: { note: string; value: string }) => (
  <div class="notice" role="status">
    <p safe>{props.note}</p>
    <p>
      <code class="secret" safe>
        {props.value}
      </code>
    </p>
  </div>
);

/** Why a form is not offered: the role, or the missing TOTP (the server refuses either way). */
export function NotOffered(props: { mayAct: boolean; needsTotp?: boolean; totpEnrolled?: boolean; what: string }) {
  if (!props.mayAct) return <p class="muted" safe>{`Seu papel permite ver, não ${props.what}.`}</p>;
  if (props.needsTotp && !props.totpEnrolled)
    return (
      <p>
        <span safe>{`Para ${props.what}, ative a verificação em duas etapas em `}</span>
        <a href="/dashboard/seguranca">Segurança</a>.
      </p>
    );
  return '';
}

/** A table that may scroll sideways (a wide screen's long row): a named region the keyboard can reach and scroll. */
const ScrollRegion = (props: { label: string; children?: Children }) => (
  <div class="table-wrap" tabindex="0" role="region" aria-label={props.label}>
    {props.children}
  </div>
);

/**
 * Each body cell of `rows` (the rows the list views write, one `<td>` per column, no nested tables)
 * with its column's name as `data-label` and the roles of a table: a phone shows each row as a card
 * with the name before each value (CSS), and a card's CSS display must not cost screen readers the
 * table's rows and cells. Its answer is safe: `rows` is HTML the views already escaped, and the
 * labels it adds are escaped here.
 */
function safeLabelledRows(rows: string, columns: readonly string[]): string {
  return rows.replace(/<tr\b([^>]*)>([\s\S]*?)<\/tr>/g, (_row, attributes: string, cells: string) => {
    let index = 0;
    const labelled = cells.replace(/<td\b/g, () => {
      const column = columns[index++];
      return column === undefined ? '<td role="cell"' : `<td role="cell" data-label="${escapeHtml(column)}"`;
    });
    return `<tr role="row"${attributes}>${labelled}</tr>`;
  });
}

/**
 * Rows (`children`) under their column headings, in a region named `label`: a table on a wide
 * screen, a card per row on a phone (each value after its column's name); a column given as false
 * is left out (one the role does not act in).
 */
export function DataTable(props: { label: string; columns: readonly (string | false)[]; children?: Children }): JSX.Element {
  const columns = props.columns.filter((column) => column !== false);
  const table = (rows: string) => (
    <ScrollRegion label={props.label}>
      <table class="cards-narrow" role="table">
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) => (
              <th scope="col" role="columnheader" safe>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">{safeLabelledRows(rows, columns)}</tbody>
      </table>
    </ScrollRegion>
  );
  const rows = contentsToString([props.children]);
  return typeof rows === 'string' ? table(rows) : rows.then(table);
}

const KEY_TYPE_NAMES: Record<string, string> = { cpf: 'CPF', cnpj: 'CNPJ', email: 'E-mail', phone: 'Telefone (+55…)', evp: 'Chave aleatória' };

export const pixKeyTypeName = (type: string): string => KEY_TYPE_NAMES[type] ?? type;

/** A PIX key and its type, as the API's `pixKey` and `pixKeyType`. */
export const PixKeyFields = (props: { pixKey: string; pixKeyType: string }) => (
  <>
    <label>
      Tipo da chave PIX
      <select name="pixKeyType">
        {PIX_KEY_TYPES.map((type) => (
          <option value={type} selected={props.pixKeyType === type} safe>
            {pixKeyTypeName(type)}
          </option>
        ))}
      </select>
    </label>
    <label>
      Chave PIX
      <input name="pixKey" required maxlength="150" autocomplete="off" value={props.pixKey} />
    </label>
  </>
);

/** A CPF or CNPJ and its type, as the API's document fields. */
export const DocumentFields = (props: { document: string; documentType: string }) => (
  <>
    <label>
      Documento (CPF ou CNPJ)
      <input name="document" required autocomplete="off" autocapitalize="characters" spellcheck="false" value={props.document} />
    </label>
    <label>
      Tipo do documento
      <select name="documentType">
        <option value="cpf" selected={props.documentType !== 'cnpj'}>
          CPF
        </option>
        <option value="cnpj" selected={props.documentType === 'cnpj'}>
          CNPJ
        </option>
      </select>
    </label>
  </>
);
