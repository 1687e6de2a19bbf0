import type { InfractionView } from '../infractions/presenter.js';
import { formatBrl } from '../messages.js';
import { maskAnyDocument, normalizeDocument } from '../pix/documents.js';
import type { ChargeCustomer } from '../platform/schema.js';
import { refundableCents, type RefundView } from '../refunds/presenter.js';
import type { TransactionView } from '../transactions/presenter.js';
import { CHARGE_STATUSES } from '../platform/schema.js';
import {
  Alert,
  CodeField,
  CsrfField,
  formatDate,
  formatDay,
  Layout,
  Money,
  Notice,
  NotOffered,
  Status,
  statusName,
  type PageContext,
  DataTable,
  DocumentFields,
} from '../pages/components.js';
import type { ListFilterForm } from '../pages/filters.js';

export type ChargeForm = { amount: string; name: string; email: string; phone: string; document: string; documentType: string };
export type DueChargeForm = {
  amount: string;
  name: string;
  document: string;
  documentType: string;
  dueDate: string;
  validity: string;
  fine: string;
  interest: string;
  discount: string;
  discountUntil: string;
};
export const EMPTY_DUE_CHARGE_FORM: DueChargeForm = {
  amount: '',
  name: '',
  document: '',
  documentType: 'cpf',
  dueDate: '',
  validity: '30',
  fine: '',
  interest: '',
  discount: '',
  discountUntil: '',
};

/** A part of a due-date charge's terms in words: "2%" or "R$ 5,00". */
const partText = (value: { amountCents?: number | undefined; percent?: number | undefined }) =>
  value.percent === undefined ? formatBrl(value.amountCents ?? 0) : `${String(value.percent).replace('.', ',')}%`;

const INTEREST_PERIODS: Record<string, string> = { day: 'ao dia', month: 'ao mês', year: 'ao ano' };

/** The terms of a charge with a due date, as lines of the charge's page. */
function dueTermLines(due: NonNullable<TransactionView['due']>): [string, string][] {
  const lines: [string, string][] = [
    ['Vencimento', formatDay(due.dueDate)],
    ['Pagável até', formatDay(due.lastPayableDate)],
  ];
  if (due.fine) lines.push(['Multa', partText(due.fine)]);
  if (due.interest) {
    const days = due.interest.days === 'business' ? ', dias úteis' : '';
    lines.push(['Juros', `${partText(due.interest)} ${INTEREST_PERIODS[due.interest.per] ?? ''}${days}`]);
  }
  if (due.abatement) lines.push(['Abatimento', partText(due.abatement)]);
  const { discount } = due;
  if (discount && 'until' in discount) lines.push(['Desconto', discount.until.map((tier) => `${partText(tier)} até ${formatDay(tier.date)}`).join('; ')]);
  if (discount && 'perDayEarly' in discount) {
    const { perDayEarly } = discount;
    lines.push(['Desconto', `${partText(perDayEarly)} por dia${perDayEarly.days === 'business' ? ' útil' : ''} de antecipação`]);
  }
  return lines;
}

/** New charge with a due date (BCB's cobv): the common terms; the API takes every modality (docs/due-charges.md). */
export function DueChargePage(props: { context: PageContext; form: DueChargeForm; mayCreate: boolean; error?: string | undefined }) {
  const { form } = props;
  return (
    <Layout title="Cobrança com vencimento" context={props.context}>
      <h1>Nova cobrança com vencimento</h1>
      <Alert message={props.error} />
      {props.mayCreate ? (
        <form class="stack" method="post" action="/dashboard/cobrancas/vencimento">
          <CsrfField token={props.context.csrfToken} />
          <p class="muted">
            Paga até o vencimento pelo valor original (menos o desconto, se houver); depois, com multa e juros, até o último dia aceito. Vencimento em fim de
            semana ou feriado vale até o próximo dia útil.
          </p>
          <label>
            Valor (R$)
            <input name="amount" inputmode="decimal" required placeholder="150,00" value={form.amount} />
          </label>
          <label>
            Nome do pagador
            <input name="name" required maxlength="100" autocomplete="off" value={form.name} />
          </label>
          <DocumentFields document={form.document} documentType={form.documentType} />
          <label>
            Vencimento
            <input type="date" name="dueDate" required value={form.dueDate} />
          </label>
          <label>
            Dias aceitos após o vencimento
            <input name="validity" inputmode="numeric" required value={form.validity} />
          </label>
          <label>
            Multa por atraso (%, opcional)
            <input name="fine" inputmode="decimal" placeholder="2,00" value={form.fine} />
          </label>
          <label>
            Juros ao mês (%, opcional)
            <input name="interest" inputmode="decimal" placeholder="1,00" value={form.interest} />
          </label>
          <label>
            Desconto (R$, opcional)
            <input name="discount" inputmode="decimal" placeholder="5,00" value={form.discount} />
          </label>
          <label>
            Desconto válido até
            <input type="date" name="discountUntil" value={form.discountUntil} />
          </label>
          <button type="submit">Criar cobrança com vencimento</button>
        </form>
      ) : (
        <NotOffered mayAct={false} what="criar cobranças" />
      )}
      <p>
        <a href="/dashboard/cobrancas">Voltar às cobranças</a>
      </p>
    </Layout>
  );
}
export type RefundForm = { amount: string; reason: string };

/** A BR Code to pay: its QR image and the copy-and-paste text with its copy button (a charge's page, a static QR code's). */
export function PixCodeBlock(props: { image: string; alt: string; payload: string; rows: number }) {
  return (
    <>
      <h2>QR Code</h2>
      <img src={props.image} width="256" height="256" alt={props.alt} />
      <label>
        PIX copia e cola
        <textarea id="pix-copia-e-cola" readonly rows={String(props.rows)} safe>
          {props.payload}
        </textarea>
      </label>
      <p>
        <button type="button" data-copy="pix-copia-e-cola">
          Copiar código
        </button>
      </p>
    </>
  );
}

/** The filters of a list page (GET, so a filtered list is a link to share). */
export function FilterForm(props: { action: string; filter: ListFilterForm; statuses: readonly string[]; of?: 'withdrawal' }) {
  return (
    <form class="filters" method="get" action={props.action} role="search" aria-label="Filtrar">
      <label>
        Status
        <select name="status">
          <option value="">Todos</option>
          {props.statuses.map((status) => (
            <option value={status} selected={props.filter.status === status} safe>
              {statusName(status, props.of)}
            </option>
          ))}
        </select>
      </label>
      <label>
        De
        <input type="date" name="de" value={props.filter.from} />
      </label>
      <label>
        Até
        <input type="date" name="ate" value={props.filter.to} />
      </label>
      <button type="submit">Filtrar</button>
    </form>
  );
}

export function ChargesPage(props: {
  context: PageContext;
  charges: TransactionView[];
  filter: ListFilterForm;
  mayCreate: boolean;
  form?: ChargeForm | undefined;
  error?: string | undefined;
}) {
  const form = props.form ?? { amount: '', name: '', email: '', phone: '', document: '', documentType: 'cpf' };
  const filtered = props.filter.status !== '' || props.filter.from !== '' || props.filter.to !== '';
  return (
    <Layout title="Cobranças" context={props.context}>
      <h1>Cobranças</h1>
      <Alert message={props.error} />
      <ul class="links">
        {props.mayCreate ? (
          <li>
            <a href="/dashboard/cobrancas/vencimento">Cobrança com vencimento</a>: multa, juros e desconto, como um boleto
          </li>
        ) : (
          ''
        )}
        <li>
          <a href="/dashboard/qr-estaticos">QR Codes estáticos</a>: um código para imprimir, pago quantas vezes for lido
        </li>
        <li>
          <a href="/dashboard/recorrencias">Recorrências (Pix Automático)</a>: o pagador autoriza uma vez e cada ciclo é debitado na data
        </li>
      </ul>
      {props.mayCreate ? (
        <details id="nova-cobranca" open={props.form !== undefined || (props.charges.length === 0 && !filtered)}>
          <summary>Nova cobrança</summary>
          <form class="stack" method="post" action="/dashboard/cobrancas">
            <CsrfField token={props.context.csrfToken} />
            <label>
              Valor (R$)
              <input name="amount" inputmode="decimal" required placeholder="15,00" value={form.amount} />
            </label>
            <label>
              Nome do cliente
              <input name="name" required maxlength="100" autocomplete="off" value={form.name} />
            </label>
            <label>
              E-mail do cliente
              <input type="email" name="email" required autocomplete="off" value={form.email} />
            </label>
            <label>
              Telefone (DDD + número)
              <input name="phone" inputmode="numeric" required placeholder="11987654321" autocomplete="off" value={form.phone} />
            </label>
            <DocumentFields document={form.document} documentType={form.documentType} />
            <button type="submit">Criar cobrança</button>
          </form>
        </details>
      ) : (
        <NotOffered mayAct={false} what="criar cobranças" />
      )}
      <h2>{filtered ? 'Cobranças filtradas' : 'Últimas cobranças'}</h2>
      <FilterForm action="/dashboard/cobrancas" filter={props.filter} statuses={CHARGE_STATUSES} />
      {props.charges.length === 0 ? (
        <p class="muted empty">
          {filtered ? (
            <>
              Nenhuma cobrança com estes filtros. <a href="/dashboard/cobrancas">Ver todas as cobranças</a>.
            </>
          ) : props.mayCreate ? (
            <>
              Nenhuma cobrança ainda. Crie a primeira em <a href="#nova-cobranca">Nova cobrança</a> ou pela API (POST /v1/pix, veja{' '}
              <a href="/docs">a referência</a>).
            </>
          ) : (
            <>Nenhuma cobrança ainda. As criadas pela API (POST /v1/pix) ou por quem tem o papel de dono ou financeiro aparecem aqui.</>
          )}
        </p>
      ) : (
        <DataTable label="Cobranças" columns={['Criada em', 'Valor', 'Status', 'Detalhe']}>
          {props.charges.map((charge) => (
            <tr>
              <td safe>{formatDate(charge.createdAt)}</td>
              <td>
                <Money cents={charge.amountCents} />
              </td>
              <td>
                <Status status={charge.status} />
              </td>
              <td>
                <a
                  href={`/dashboard/cobrancas/${charge.transactionId}`}
                  aria-label={`Ver a cobrança de ${formatBrl(charge.amountCents)} criada em ${formatDate(charge.createdAt)}`}
                >
                  Ver
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Layout>
  );
}

const REFUND_KIND_NAMES: Record<string, string> = {
  merchant: 'Devolução',
  med: 'MED',
  returned_payment: 'Pagamento devolvido',
  cautionary_return: 'Devolvido pelo PSP (bloqueio cautelar)',
};

/** A charge the PSP held on receipt (cautionary block): held until when, or how the hold ended. */
function HoldLines(props: { charge: TransactionView }) {
  const { charge } = props;
  const until = formatDate(charge.heldUntil ?? 0);
  const text = charge.held ? `Retida até ${until}` : charge.status === 'refunded' ? 'Devolvida ao pagador pelo PSP' : 'Liberada pelo PSP';
  return (
    <>
      <dt>Bloqueio cautelar</dt>
      <dd>
        <strong safe>{text}</strong>
      </dd>
    </>
  );
}

/** An amount as typed in a form's field labelled "(R$)": `1.234,56`. */
const amountAsTyped = (cents: number): string => formatBrl(cents).replace(/^R\$\s/, '');

/** The charge's customer: name, document masked as the API masks it (CPF, CNPJ, alphanumeric CNPJ), e-mail. */
function CustomerLines(props: { customer: ChargeCustomer }) {
  const { customer } = props;
  return (
    <>
      <dt>Cliente</dt>
      <dd safe>{customer.name}</dd>
      <dt>Documento</dt>
      <dd safe>{`${customer.document.type.toUpperCase()} ${maskAnyDocument(normalizeDocument(customer.document.number))}`}</dd>
      {customer.email ? (
        <>
          <dt>E-mail</dt>
          <dd safe>{customer.email}</dd>
        </>
      ) : (
        ''
      )}
    </>
  );
}

/** The MED cases of a charge, each linking to its case on Disputas. */
function ChargeDisputes(props: { disputes: InfractionView[] }) {
  return (
    <>
      <h2>Disputas</h2>
      {props.disputes.length === 0 ? (
        <p class="muted">Nenhuma disputa (MED) aberta sobre esta cobrança.</p>
      ) : (
        <DataTable label="Disputas da cobrança" columns={['Aberta em', 'Valor', 'Status', 'Detalhe']}>
          {props.disputes.map((dispute) => (
            <tr>
              <td safe>{formatDate(dispute.openedAt)}</td>
              <td>
                <Money cents={dispute.amountCents} />
              </td>
              <td>
                <Status status={dispute.status} of="infraction" />
              </td>
              <td>
                <a href={`/dashboard/disputas#caso-${dispute.infractionId}`} aria-label={`Ver a disputa aberta em ${formatDate(dispute.openedAt)}`}>
                  Ver
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

export function ChargePage(props: {
  context: PageContext;
  charge: TransactionView;
  refunds: RefundView[];
  /** Who the charge was made out to (null on a static QR's payment or a recurrence's cycle). */
  customer: ChargeCustomer | null;
  /** The MED cases opened on it. */
  disputes: InfractionView[];
  mayCancel: boolean;
  mayRefund: boolean;
  totpEnrolled: boolean;
  /** A pending charge with a due date: what a payment today must be. */
  amountDueToday?: number | undefined;
  refund?: RefundForm | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { charge } = props;
  const refundForm = props.refund ?? { amount: '', reason: '' };
  return (
    <Layout title="Cobrança" context={props.context}>
      <h1>
        Cobrança de <Money cents={charge.amountCents} />
      </h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <dl>
        <dt>Status</dt>
        <dd>
          <Status status={charge.status} />
        </dd>
        {charge.heldUntil === undefined ? '' : <HoldLines charge={charge} />}
        {props.customer ? <CustomerLines customer={props.customer} /> : ''}
        <dt>Referência externa</dt>
        <dd safe>{charge.externalRef ?? '—'}</dd>
        <dt>Tarifa</dt>
        <dd>
          <Money cents={charge.feeCents} />
        </dd>
        <dt>Líquido</dt>
        <dd>
          <Money cents={charge.netCents} />
        </dd>
        {charge.refundedCents ? (
          <>
            <dt>Devolvido</dt>
            <dd>
              <Money cents={charge.refundedCents} />
            </dd>
          </>
        ) : (
          ''
        )}
        <dt>Criada em</dt>
        <dd safe>{formatDate(charge.createdAt)}</dd>
        {charge.due ? (
          <>
            {dueTermLines(charge.due).map(([term, text]) => (
              <>
                <dt safe>{term}</dt>
                <dd safe>{text}</dd>
              </>
            ))}
            {props.amountDueToday === undefined ? (
              ''
            ) : (
              <>
                <dt>A pagar hoje</dt>
                <dd>
                  <Money cents={props.amountDueToday} />
                </dd>
              </>
            )}
            {charge.due.paid && charge.due.originalAmountCents !== charge.amountCents ? (
              <>
                <dt>Valor original</dt>
                <dd>
                  <Money cents={charge.due.originalAmountCents} />
                </dd>
              </>
            ) : (
              ''
            )}
          </>
        ) : (
          <>
            <dt>Vence em</dt>
            <dd safe>{charge.expiresAt === null ? '—' : formatDate(charge.expiresAt * 1000)}</dd>
          </>
        )}
        <dt>Paga em</dt>
        <dd safe>{charge.paidAt === null ? '—' : formatDate(charge.paidAt)}</dd>
        {charge.staticQrId ? (
          <>
            <dt>QR Code estático</dt>
            <dd>
              <a href={`/dashboard/qr-estaticos/${charge.staticQrId}`}>Ver o QR Code pago</a>
            </dd>
          </>
        ) : (
          ''
        )}
        {charge.recurrenceId ? (
          <>
            <dt>Pix Automático</dt>
            <dd>
              <a href={`/dashboard/recorrencias/${charge.recurrenceId}`} safe>
                {`Ver a recorrência (ciclo ${charge.cycle ?? '—'})`}
              </a>
            </dd>
          </>
        ) : (
          ''
        )}
        <dt>Id</dt>
        <dd>
          <code safe>{charge.transactionId}</code>
        </dd>
        {charge.endToEndId ? (
          <>
            <dt>EndToEndId</dt>
            <dd>
              <code safe>{charge.endToEndId}</code>
            </dd>
          </>
        ) : (
          ''
        )}
      </dl>
      {charge.pixPayload && charge.status === 'pending' ? (
        <PixCodeBlock image={`/dashboard/cobrancas/${charge.transactionId}/qrcode.png`} alt="QR Code PIX da cobrança" payload={charge.pixPayload} rows={4} />
      ) : (
        ''
      )}
      {props.mayCancel ? (
        <form method="post" action={`/dashboard/cobrancas/${charge.transactionId}/cancelar`}>
          <CsrfField token={props.context.csrfToken} />
          <p class="muted">Cancelar: a cobrança deixará de aceitar pagamento; um PIX que chegar depois será devolvido ao pagador.</p>
          <button type="submit" class="danger">
            Cancelar cobrança
          </button>
        </form>
      ) : (
        ''
      )}
      {charge.held ? (
        <p class="muted">
          O PSP reteve este PIX para análise (bloqueio cautelar, Res. BCB 506): o líquido já está no saldo, mas bloqueado; não pode ser sacado nem devolvido até
          o PSP liberá-lo. Se o PSP devolver o PIX ao pagador, a cobrança fica devolvida e o saldo volta ao que era antes dela, tarifa incluída.
        </p>
      ) : (
        ''
      )}
      {props.mayRefund ? (
        <>
          <h2>Devolver</h2>
          {props.totpEnrolled ? (
            <form class="stack" method="post" action={`/dashboard/cobrancas/${charge.transactionId}/devolver`}>
              <CsrfField token={props.context.csrfToken} />
              <p class="muted">O valor sai do saldo sacável agora e volta se a devolução falhar. A tarifa não é devolvida.</p>
              <label>
                Valor (R$, vazio = todo o restante)
                <input
                  name="amount"
                  inputmode="decimal"
                  placeholder={`${amountAsTyped(refundableCents(charge.amountCents, props.refunds))} (todo o restante)`}
                  value={refundForm.amount}
                />
              </label>
              <label>
                Motivo (opcional)
                <input name="reason" maxlength="140" value={refundForm.reason} />
              </label>
              <CodeField />
              <button type="submit">Devolver ao pagador</button>
            </form>
          ) : (
            <NotOffered mayAct needsTotp what="devolver pagamentos" />
          )}
        </>
      ) : (
        ''
      )}
      <h2>Devoluções</h2>
      {props.refunds.length === 0 ? (
        <p class="muted empty">
          {props.mayRefund
            ? 'Nenhuma devolução. Para devolver todo o valor ou parte dele ao pagador, use Devolver acima (até 90 dias após o pagamento).'
            : charge.held
              ? 'Nenhuma devolução. Retida pelo PSP: pode ser devolvida depois da liberação.'
              : 'Nenhuma devolução. Só cobranças pagas podem ser devolvidas, por quem tem o papel dono ou financeiro.'}
        </p>
      ) : (
        <DataTable label="Devoluções da cobrança" columns={['Pedida em', 'Tipo', 'Valor', 'Status', 'Motivo']}>
          {props.refunds.map((refund) => (
            <tr>
              <td safe>{formatDate(refund.createdAt)}</td>
              <td safe>{REFUND_KIND_NAMES[refund.kind] ?? refund.kind}</td>
              <td>
                <Money cents={refund.amountCents} />
              </td>
              <td>
                <Status status={refund.status} of="refund" />
              </td>
              <td safe>{refund.reason ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <ChargeDisputes disputes={props.disputes} />
      <p>
        <a href="/dashboard/cobrancas">Voltar às cobranças</a>
      </p>
    </Layout>
  );
}
