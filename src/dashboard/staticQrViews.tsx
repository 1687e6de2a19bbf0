import { formatBrl } from '../messages.js';
import type { StaticQrView } from '../staticqr/presenter.js';
import type { TransactionView } from '../transactions/presenter.js';
import { PixCodeBlock } from './chargeViews.js';
import { Alert, CsrfField, DataTable, formatDate, Layout, Money, Notice, NotOffered, Status, type PageContext } from '../pages/components.js';

/** The new code's fields as typed: an empty amount is an open one (the payer types it). */
export type StaticQrForm = { amount: string; description: string; txid: string };
const EMPTY_FORM: StaticQrForm = { amount: '', description: '', txid: '' };

const statusOf = (code: StaticQrView) => (code.active ? 'active' : 'deactivated');

/** The amount of a code: fixed, or the payer's to type. */
const CodeAmount = ({ code }: { code: StaticQrView }) => (code.amountCents === null ? 'Valor livre' : <Money cents={code.amountCents} />);

/** What a code is called where a link or a button names it: its txid, which the payer's bank statement shows too. */
const codeName = (code: StaticQrView) => `o QR Code estático ${code.txid}`;

/** QR Codes estáticos: the account's codes (active and deactivated, newest first) and the form for a new one. */
export function StaticQrCodesPage(props: {
  context: PageContext;
  codes: StaticQrView[];
  /** How many PIX each code received (absent: none). */
  payments: ReadonlyMap<string, number>;
  mayCreate: boolean;
  form?: StaticQrForm | undefined;
  error?: string | undefined;
}) {
  const form = props.form ?? EMPTY_FORM;
  return (
    <Layout title="QR Codes estáticos" context={props.context}>
      <h1>QR Codes estáticos</h1>
      <p class="muted">
        Um QR Code para imprimir e deixar no balcão: pode ser pago quantas vezes for lido, e cada PIX pago a ele é uma nova cobrança paga em Cobranças. Com
        valor fixo, o pagador paga esse valor; sem valor, ele digita quanto pagar.
      </p>
      <Alert message={props.error} />
      {props.mayCreate ? (
        <details id="novo-qr-code" open={props.form !== undefined || props.codes.length === 0}>
          <summary>Novo QR Code estático</summary>
          <form class="stack" method="post" action="/dashboard/qr-estaticos">
            <CsrfField token={props.context.csrfToken} />
            <label>
              Valor fixo (R$, opcional)
              <input name="amount" inputmode="decimal" placeholder="15,00" aria-describedby="valor-livre" value={form.amount} />
            </label>
            <p id="valor-livre" class="muted hint">
              Vazio: valor livre, o pagador digita o valor.
            </p>
            <label>
              Descrição (opcional)
              <input name="description" maxlength="37" autocomplete="off" aria-describedby="descricao-dica" value={form.description} />
            </label>
            <p id="descricao-dica" class="muted hint">
              Até 37 caracteres, mostrados pelo banco do pagador.
            </p>
            <label>
              Identificador (txid, opcional)
              <input name="txid" maxlength="25" autocomplete="off" spellcheck="false" aria-describedby="txid-dica" value={form.txid} />
            </label>
            <p id="txid-dica" class="muted hint">
              De 1 a 25 letras ou dígitos, único; vazio, o gateway cria um.
            </p>
            <button type="submit">Criar QR Code</button>
          </form>
        </details>
      ) : (
        <NotOffered mayAct={false} what="criar QR Codes estáticos" />
      )}
      <h2>Seus QR Codes</h2>
      {props.codes.length === 0 ? (
        <p class="muted empty">
          {props.mayCreate ? (
            <>
              Nenhum QR Code estático ainda. Crie o primeiro em <a href="#novo-qr-code">Novo QR Code estático</a> ou pela API (POST /v1/pix/static, veja{' '}
              <a href="/docs">a referência</a>).
            </>
          ) : (
            <>
              Nenhum QR Code estático ainda. Os criados pela API (POST /v1/pix/static) ou por quem tem o papel de dono ou financeiro aparecem aqui. Os
              pagamentos recebidos estão em <a href="/dashboard/cobrancas">Cobranças</a>.
            </>
          )}
        </p>
      ) : (
        <DataTable label="QR Codes estáticos" columns={['Criado em', 'Valor', 'Descrição', 'txid', 'Status', 'Pagamentos', 'Detalhe']}>
          {props.codes.map((code) => (
            <tr>
              <td safe>{formatDate(code.createdAt)}</td>
              <td>
                <CodeAmount code={code} />
              </td>
              <td safe>{code.description ?? '—'}</td>
              <td>
                <code class="small" safe>
                  {code.txid}
                </code>
              </td>
              <td>
                <Status status={statusOf(code)} of="staticQr" />
              </td>
              <td safe>{String(props.payments.get(code.id) ?? 0)}</td>
              <td>
                <a href={`/dashboard/qr-estaticos/${code.id}`} aria-label={`Ver ${codeName(code)}`}>
                  Ver
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <p>
        <a href="/dashboard/cobrancas">Voltar às cobranças</a>
      </p>
    </Layout>
  );
}

/** One code: its terms, the QR image and the copy-and-paste code while active, deactivation, and the PIX paid to it. */
export function StaticQrCodePage(props: {
  context: PageContext;
  code: StaticQrView;
  /** The latest PIX paid to it, newest first. */
  payments: TransactionView[];
  /** How many it received in all. */
  paymentCount: number;
  mayDeactivate: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { code } = props;
  const base = `/dashboard/qr-estaticos/${code.id}`;
  return (
    <Layout title="QR Code estático" context={props.context}>
      <h1>
        {code.amountCents === null ? (
          'QR Code estático de valor livre'
        ) : (
          <>
            QR Code estático de <Money cents={code.amountCents} />
          </>
        )}
      </h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <dl>
        <dt>Status</dt>
        <dd>
          <Status status={statusOf(code)} of="staticQr" />
        </dd>
        <dt>Valor</dt>
        <dd>{code.amountCents === null ? 'Livre: o pagador digita o valor' : <Money cents={code.amountCents} />}</dd>
        <dt>Descrição</dt>
        <dd safe>{code.description ?? '—'}</dd>
        <dt>txid</dt>
        <dd>
          <code safe>{code.txid}</code>
        </dd>
        <dt>Criado em</dt>
        <dd safe>{formatDate(code.createdAt)}</dd>
        {code.deactivatedAt === null ? (
          ''
        ) : (
          <>
            <dt>Desativado em</dt>
            <dd safe>{formatDate(code.deactivatedAt)}</dd>
          </>
        )}
        <dt>Pagamentos</dt>
        <dd safe>{String(props.paymentCount)}</dd>
        {code.externalRef === null ? (
          ''
        ) : (
          <>
            <dt>externalRef</dt>
            <dd>
              <code safe>{code.externalRef}</code>
            </dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code safe>{code.id}</code>
        </dd>
      </dl>
      {code.active ? (
        <PixCodeBlock image={`${base}/qrcode.png`} alt="QR Code PIX estático" payload={code.pixPayload} rows={5} />
      ) : (
        <p class="muted">Desativado, este QR Code não recebe mais pagamentos. Se ele ainda estiver impresso em algum lugar, retire-o.</p>
      )}
      {props.mayDeactivate && code.active ? (
        <form method="post" action={`${base}/desativar`}>
          <CsrfField token={props.context.csrfToken} />
          <p class="muted">
            Desativado, o QR Code não aceita mais pagamento: um PIX para ele é recusado. Não há como reativá-lo; para voltar a receber, crie outro.
          </p>
          <button type="submit" class="danger">
            Desativar QR Code
          </button>
        </form>
      ) : (
        ''
      )}
      <h2>Pagamentos</h2>
      {props.payments.length === 0 ? (
        <p class="muted empty">
          {code.active
            ? 'Nenhum pagamento ainda. Cada PIX pago a este QR Code aparece aqui e em Cobranças, como uma cobrança paga.'
            : 'Nenhum pagamento: este QR Code não recebeu nenhum PIX.'}
        </p>
      ) : (
        <>
          <DataTable label="Pagamentos do QR Code" columns={['Pago em', 'Valor', 'Tarifa', 'Líquido', 'Pagador', 'Status', 'Detalhe']}>
            {props.payments.map((payment) => (
              <tr>
                <td safe>{formatDate(payment.paidAt ?? payment.createdAt)}</td>
                <td>
                  <Money cents={payment.amountCents} />
                </td>
                <td>
                  <Money cents={payment.feeCents} />
                </td>
                <td>
                  <Money cents={payment.netCents} />
                </td>
                <td safe>{payment.payer?.name ?? '—'}</td>
                <td>
                  <Status status={payment.status} />
                </td>
                <td>
                  <a
                    href={`/dashboard/cobrancas/${payment.transactionId}`}
                    aria-label={`Ver o pagamento de ${formatBrl(payment.amountCents)} recebido em ${formatDate(payment.paidAt ?? payment.createdAt)}`}
                  >
                    Ver
                  </a>
                </td>
              </tr>
            ))}
          </DataTable>
          {props.paymentCount > props.payments.length ? (
            <p class="muted">
              <span safe>{`Os ${props.payments.length} mais recentes de ${props.paymentCount}. `}</span>
              Todos estão em <a href="/dashboard/transacoes">Transações</a>.
            </p>
          ) : (
            ''
          )}
        </>
      )}
      <p>
        <a href="/dashboard/qr-estaticos">Voltar aos QR Codes estáticos</a>
      </p>
    </Layout>
  );
}
