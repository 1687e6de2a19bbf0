import type { RecurrenceFrequency, RetryPolicy } from '../platform/schema.js';
import type { CycleView, RecurrenceView } from '../recurrences/presenter.js';
import { Alert, CsrfField, DataTable, formatDate, formatDay, Layout, Money, Notice, NotOffered, Status, type PageContext } from '../pages/components.js';
import { maskDocument } from '../pix/documents.js';

/** BCB's periodicidade in Portuguese (docs/recurrences.md). */
const FREQUENCY_NAMES: Record<RecurrenceFrequency, string> = {
  weekly: 'Semanal',
  monthly: 'Mensal',
  quarterly: 'Trimestral',
  semiannual: 'Semestral',
  annual: 'Anual',
};

/** BCB's politicaRetentativa in words. */
const RETRY_POLICY_NAMES: Record<RetryPolicy, string> = {
  none: 'Não: um débito que falha encerra o ciclo',
  three_in_seven_days: 'Até 3 novas tentativas, em até 7 dias após o vencimento',
};

/** Who cancelled it. */
const CANCELLED_BY_NAMES: Record<'merchant' | 'payer', string> = { merchant: 'Recebedor (você)', payer: 'Pagador' };

/** Each cycle's amount: fixed, or variable up to a ceiling (the payer authorizes up to it). */
function RecurrenceAmount(props: { recurrence: RecurrenceView }) {
  const { amountCents, maxAmountCents } = props.recurrence;
  const amount = amountCents === null ? '—' : <Money cents={amountCents} />;
  if (maxAmountCents === null) return amount;
  return (
    <>
      {amount}, variável até <Money cents={maxAmountCents} />
    </>
  );
}

/** What a link or a button names: its contract and payer. */
const recurrenceName = (recurrence: RecurrenceView) => `a recorrência ${recurrence.contract} de ${recurrence.debtor.name}`;

/** The next cycle's day, or why there is none. */
const nextCycleText = (recurrence: RecurrenceView) => (recurrence.nextCycleDate === null ? '—' : formatDay(recurrence.nextCycleDate));

/** Recorrências: the account's Pix Automático recurrences, one page at a time (newest first). */
export function RecurrencesPage(props: {
  context: PageContext;
  /** The page's rows; undefined when the cursor was refused (the message says why). */
  recurrences: RecurrenceView[] | undefined;
  /** The cursor of this page ('' for the first) and the next page's, when there is one. */
  after: string;
  next: string | undefined;
  error?: string | undefined;
}) {
  const { recurrences } = props;
  return (
    <Layout title="Recorrências" context={props.context}>
      <h1>Recorrências (Pix Automático)</h1>
      <p class="muted">
        O pagador autoriza uma vez, no app do banco, e cada ciclo é cobrado e debitado na data, sem QR Code. As recorrências são criadas pela API (POST
        /v1/recurrences); aqui você acompanha cada uma com os seus ciclos e pode cancelá-la.
      </p>
      <Alert message={props.error} />
      {recurrences === undefined ? (
        <p>
          <a href="/dashboard/recorrencias">Ver as recorrências mais recentes</a>
        </p>
      ) : recurrences.length === 0 ? (
        <p class="muted empty">
          {props.after === '' ? (
            <>
              Nenhuma recorrência ainda. Crie a primeira pela API (POST /v1/recurrences, veja <a href="/docs">a referência</a>): depois que o pagador autorizar,
              cada ciclo aparece aqui.
            </>
          ) : (
            <>
              Nenhuma recorrência depois desta página. <a href="/dashboard/recorrencias">Ver as mais recentes</a>.
            </>
          )}
        </p>
      ) : (
        <>
          <DataTable label="Recorrências" columns={['Contrato', 'Pagador', 'Frequência', 'Valor por ciclo', 'Status', 'Próximo ciclo', 'Criada em', 'Detalhe']}>
            {recurrences.map((recurrence) => (
              <tr>
                <td safe>{recurrence.contract}</td>
                <td safe>{recurrence.debtor.name}</td>
                <td safe>{FREQUENCY_NAMES[recurrence.frequency]}</td>
                <td>
                  <RecurrenceAmount recurrence={recurrence} />
                </td>
                <td>
                  <Status status={recurrence.status} of="recurrence" />
                </td>
                <td safe>{nextCycleText(recurrence)}</td>
                <td safe>{formatDate(recurrence.createdAt)}</td>
                <td>
                  <a href={`/dashboard/recorrencias/${recurrence.id}`} aria-label={`Ver ${recurrenceName(recurrence)}`}>
                    Ver
                  </a>
                </td>
              </tr>
            ))}
          </DataTable>
          <RecurrencePager after={props.after} next={props.next} />
        </>
      )}
      <p>
        <a href="/dashboard/cobrancas">Voltar às cobranças</a>
      </p>
    </Layout>
  );
}

/** As Transações' pager: the most recent page and the next one (`?apos=`); the browser's history holds the way back. */
function RecurrencePager(props: { after: string; next: string | undefined }) {
  if (props.after === '' && !props.next) return '';
  return (
    <nav class="pager" aria-label="Páginas">
      {props.after === '' ? '' : <a href="/dashboard/recorrencias">Mais recentes</a>}
      {props.next ? (
        <a href={`/dashboard/recorrencias?apos=${props.next}`} rel="next">
          Próxima página
        </a>
      ) : (
        ''
      )}
    </nav>
  );
}

/** What the cycles' list says before the first: when it comes, or that none will. */
function noCyclesText(recurrence: RecurrenceView): string {
  const first = formatDay(recurrence.startDate);
  switch (recurrence.status) {
    case 'created':
    case 'awaiting_authorization':
      return `Nenhum ciclo ainda. Depois que o pagador autorizar, a cobrança de cada ciclo é criada de 10 a 2 dias antes da data (o primeiro em ${first}) e aparece aqui.`;
    case 'authorized':
      return `Nenhum ciclo ainda. A cobrança do próximo ciclo (${nextCycleText(recurrence)}) é criada de 10 a 2 dias antes da data e aparece aqui.`;
    case 'refused':
    case 'expired':
    case 'cancelled':
      return 'Nenhum ciclo: a recorrência terminou antes do primeiro, e nada foi cobrado.';
  }
}

/** One recurrence: its terms and status, its cycles, and cancellation while it can be cancelled. */
export function RecurrencePage(props: {
  context: PageContext;
  recurrence: RecurrenceView;
  cycles: CycleView[];
  /** The recurrence can be cancelled now (its status, and a request whose time has not passed). */
  cancellable: boolean;
  /** A variable recurrence with a cycle still to charge: its amount may change. */
  amountChangeable: boolean;
  /** The user's role may cancel it or change its amount. */
  mayCancel: boolean;
  /** The amount field as typed (kept after a refusal). */
  amount: string;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { recurrence, cycles } = props;
  const base = `/dashboard/recorrencias/${recurrence.id}`;
  const waiting = recurrence.status === 'created' || recurrence.status === 'awaiting_authorization';
  return (
    <Layout title="Recorrência" context={props.context}>
      <h1 safe>{`Recorrência ${recurrence.contract}`}</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <dl>
        <dt>Status</dt>
        <dd>
          <Status status={recurrence.status} of="recurrence" />
        </dd>
        <dt>Pagador</dt>
        <dd
          safe
        >{`${recurrence.debtor.name} (${recurrence.debtor.documentType.toUpperCase()} ${maskDocument(recurrence.debtor.documentType, recurrence.debtor.document)})`}</dd>
        <dt>Contrato</dt>
        <dd safe>{recurrence.contract}</dd>
        <dt>Objeto</dt>
        <dd safe>{recurrence.object ?? '—'}</dd>
        <dt>Frequência</dt>
        <dd safe>{FREQUENCY_NAMES[recurrence.frequency]}</dd>
        <dt>Valor por ciclo</dt>
        <dd>
          <RecurrenceAmount recurrence={recurrence} />
        </dd>
        <dt>Início</dt>
        <dd safe>{formatDay(recurrence.startDate)}</dd>
        <dt>Fim</dt>
        <dd safe>{recurrence.endDate === null ? 'Sem data de fim' : formatDay(recurrence.endDate)}</dd>
        <dt>Novas tentativas</dt>
        <dd safe>{RETRY_POLICY_NAMES[recurrence.retryPolicy]}</dd>
        <dt>Dias úteis</dt>
        <dd>{recurrence.businessDayAdjustment ? 'Ciclo em fim de semana ou feriado vence no próximo dia útil' : 'Não: os ciclos vencem em dias corridos'}</dd>
        <dt>Próximo ciclo</dt>
        <dd safe>{nextCycleText(recurrence)}</dd>
        {waiting ? (
          <>
            <dt>Autorização até</dt>
            <dd safe>{formatDate(recurrence.authorizationExpiresAt)}</dd>
          </>
        ) : (
          ''
        )}
        {recurrence.cancelledBy === null ? (
          ''
        ) : (
          <>
            <dt>Cancelada por</dt>
            <dd safe>{CANCELLED_BY_NAMES[recurrence.cancelledBy]}</dd>
          </>
        )}
        <dt>Criada em</dt>
        <dd safe>{formatDate(recurrence.createdAt)}</dd>
        {recurrence.externalRef === null ? (
          ''
        ) : (
          <>
            <dt>externalRef</dt>
            <dd>
              <code safe>{recurrence.externalRef}</code>
            </dd>
          </>
        )}
        {recurrence.providerRecurrenceId === null ? (
          ''
        ) : (
          <>
            <dt>idRec</dt>
            <dd>
              <code safe>{recurrence.providerRecurrenceId}</code>
            </dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code safe>{recurrence.id}</code>
        </dd>
      </dl>
      {props.amountChangeable && recurrence.maxAmountCents !== null ? (
        props.mayCancel ? (
          <form class="stack" method="post" action={`${base}/valor`}>
            <CsrfField token={props.context.csrfToken} />
            <p class="muted">
              O novo valor vale para os próximos ciclos, até o teto de <Money cents={recurrence.maxAmountCents} />; os ciclos já cobrados mantêm o seu.
            </p>
            <label>
              Valor dos próximos ciclos (R$)
              <input name="amount" inputmode="decimal" required placeholder="99,90" value={props.amount} />
            </label>
            <button type="submit">Alterar valor</button>
          </form>
        ) : (
          <NotOffered mayAct={false} what="alterar o valor de recorrências" />
        )
      ) : (
        ''
      )}
      {props.cancellable ? (
        props.mayCancel ? (
          <form method="post" action={`${base}/cancelar`}>
            <CsrfField token={props.context.csrfToken} />
            <p class="muted">
              Cancelada, a recorrência não gera mais cobranças: os ciclos pendentes são cancelados e nada mais é debitado do pagador. Não há como reativá-la;
              para voltar a cobrar, crie outra e peça uma nova autorização.
            </p>
            <button type="submit" class="danger">
              Cancelar recorrência
            </button>
          </form>
        ) : (
          <NotOffered mayAct={false} what="cancelar recorrências" />
        )
      ) : (
        ''
      )}
      <h2>Ciclos</h2>
      {cycles.length === 0 ? (
        <p class="muted empty" safe>
          {noCyclesText(recurrence)}
        </p>
      ) : (
        <>
          <DataTable label="Ciclos da recorrência" columns={['Ciclo', 'Vencimento', 'Débito em', 'Falhas de débito', 'Valor', 'Status', 'Cobrança']}>
            {cycles.map((cycle) => (
              <tr>
                <td safe>{String(cycle.cycle)}</td>
                <td safe>{formatDay(cycle.dueDate)}</td>
                <td safe>{formatDay(cycle.attemptDate)}</td>
                <td safe>{String(cycle.failedAttempts)}</td>
                <td>{cycle.amountCents === null ? '—' : <Money cents={cycle.amountCents} />}</td>
                <td>
                  <Status status={cycle.status} of="cycle" />
                </td>
                <td>
                  {cycle.transactionId === null ? (
                    'Sem cobrança'
                  ) : (
                    <a href={`/dashboard/cobrancas/${cycle.transactionId}`} aria-label={`Ver a cobrança do ciclo ${cycle.cycle}`}>
                      Ver
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
          {cycles.some((cycle) => cycle.status === 'skipped') ? (
            <p class="muted">
              Pulado: o ciclo foi alcançado a menos de 2 dias da data, tarde demais para a cobrança (o Pix Automático a pede de 10 a 2 dias antes); nada foi
              cobrado nem debitado nele.
            </p>
          ) : (
            ''
          )}
        </>
      )}
      <p>
        <a href="/dashboard/recorrencias">Voltar às recorrências</a>
      </p>
    </Layout>
  );
}
