import { CsrfField, DataTable, formatDate, Money, type PageContext } from '../pages/components.js';
import type { RoutingRules, RoutingTarget } from '../platform/schema.js';
import type { ProviderHealth } from '../provider/registry.js';
import type { presentDifference, presentRun } from '../reconciliation/schemas.js';
import type { ProviderTreasury } from '../treasury/service.js';
import { AccountLink, ActionForm, Page, ReadOnly } from './views.js';

/** A list's weights as the form holds them, by provider id ('' or 0 = not in the list). */
export type WeightsForm = Record<string, string>;

/** One account's own lists in the form: empty everywhere = the account uses the default lists. */
export type AccountWeightsForm = { accountId: string; charges: WeightsForm; withdrawals: WeightsForm };

/** The routing rules as the form shows them (the rules in force, or what the operator typed when refused). */
export type RoutingForm = { charges: WeightsForm; withdrawals: WeightsForm; accounts: AccountWeightsForm[]; newAccount: AccountWeightsForm };

/** A reconciliation run and one of its differences, as the operator API presents them. */
export type RunView = ReturnType<typeof presentRun>;
export type DifferenceView = ReturnType<typeof presentDifference>;

/** The form that runs a reconciliation now: a provider ('' = all) and the first and last UTC days (AAAA-MM-DD). */
export type ReconciliationForm = { providerId: string; from: string; to: string };

export type ProvidersData = {
  providers: ProviderHealth[];
  rules: RoutingRules;
  /** The names of the accounts the rules and the form name (an account not found keeps its id). */
  accountNames: Record<string, string>;
  mayEdit: boolean;
  form: RoutingForm;
  /** Each provider's latest treasury reading (none before the first). */
  treasury: ProviderTreasury[];
  mayRefreshTreasury: boolean;
  /** The latest reconciliation runs, newest first, and who asked for each, named. */
  runs: RunView[];
  requesters: Record<string, string>;
  mayReconcile: boolean;
  reconciliationForm: ReconciliationForm;
};

/** The breaker's states as the team reads them (a word, never a colour alone). */
const STATE_NAMES: Record<ProviderHealth['state'], string> = { up: 'No ar', degraded: 'Instável', down: 'Fora do ar' };

const KIND_NAMES: Record<string, string> = { simulated: 'Simulador', apipix: 'API Pix' };

const decimal = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat('pt-BR', { style: 'percent', maximumFractionDigits: 1 });

/** A weight as typed and shown: the number with a decimal comma, never grouped (1000, 0,5). */
export const weightText = (weight: number): string => String(weight).replace('.', ',');

const latency = (ms: number | null): string => (ms === null ? '—' : `${decimal.format(ms)} ms`);

/** Each provider of a list with its weight and its share of the list's traffic. */
const shares = (list: RoutingTarget[]) => {
  const total = list.reduce((sum, target) => sum + target.weight, 0);
  return list.map((target) => ({ ...target, share: percent.format(total > 0 ? target.weight / total : 0) }));
};

/** The state as a word (the API's value as its title); a state that needs attention in bold. */
const StateBadge = (props: { state: ProviderHealth['state'] }) => (
  <span class={`status provider-${props.state}`} title={props.state}>
    {props.state === 'up' ? <span safe>{STATE_NAMES.up}</span> : <strong safe>{STATE_NAMES[props.state]}</strong>}
  </span>
);

const ProviderName = (props: { providerId: string; configured: boolean }) => (
  <>
    <code safe>{props.providerId}</code>
    {props.configured ? '' : <span class="muted"> (não configurado neste processo)</span>}
  </>
);

/** A default list: provider, weight and share. */
const RulesTable = (props: { label: string; list: RoutingTarget[]; configured: Set<string> }) => (
  <DataTable label={props.label} columns={['Provedor', 'Peso', 'Participação']}>
    {shares(props.list).map((target) => (
      <tr>
        <td>
          <ProviderName providerId={target.providerId} configured={props.configured.has(target.providerId)} />
        </td>
        <td safe>{weightText(target.weight)}</td>
        <td safe>{target.share}</td>
      </tr>
    ))}
  </DataTable>
);

/** An account's own list in a cell, or the default it falls back to. */
const ListCell = (props: { list: RoutingTarget[] | undefined }) =>
  props.list ? (
    <ul class="changes">
      {shares(props.list).map((target) => (
        <li>
          <code safe>{target.providerId}</code>
          <span safe>{`: peso ${weightText(target.weight)} (${target.share})`}</span>
        </li>
      ))}
    </ul>
  ) : (
    <span class="muted">Lista padrão</span>
  );

/** One weight field per configured provider, in a group named `legend`. */
const WeightFields = (props: { legend: string; prefix: string; weights: WeightsForm; providerIds: string[] }) => (
  <fieldset>
    <legend safe>{props.legend}</legend>
    {props.providerIds.map((providerId) => (
      <label>
        <span safe>{`Peso de ${providerId}`}</span>
        <input name={`${props.prefix}.${providerId}`} inputmode="decimal" autocomplete="off" value={props.weights[providerId] ?? ''} />
      </label>
    ))}
  </fieldset>
);

/** The rules as one form: every list of the rules, a weight per configured provider. */
function RulesForm(props: { context: PageContext; data: ProvidersData }) {
  const { form, accountNames } = props.data;
  const providerIds = props.data.providers.map((provider) => provider.id);
  return (
    <form class="stack" method="post" action="/backoffice/provedores">
      <CsrfField token={props.context.csrfToken} />
      <p class="muted">Um peso por provedor; 0 ou vazio deixa o provedor fora da lista. Cada lista precisa de ao menos um provedor.</p>
      <WeightFields legend="Cobranças (lista padrão)" prefix="charges" weights={form.charges} providerIds={providerIds} />
      <WeightFields legend="Saques (lista padrão)" prefix="withdrawals" weights={form.withdrawals} providerIds={providerIds} />
      {form.accounts.map((account) => (
        <fieldset>
          <legend safe>{`Conta ${accountNames[account.accountId] ?? account.accountId}`}</legend>
          <input type="hidden" name="account" value={account.accountId} />
          <p class="muted">Todos vazios: a conta volta às listas padrão.</p>
          <WeightFields legend="Cobranças" prefix={`accounts.${account.accountId}.charges`} weights={account.charges} providerIds={providerIds} />
          <WeightFields legend="Saques" prefix={`accounts.${account.accountId}.withdrawals`} weights={account.withdrawals} providerIds={providerIds} />
        </fieldset>
      ))}
      <fieldset>
        <legend>Regras próprias para uma conta</legend>
        <label>
          Id da conta
          <input name="newAccount" autocomplete="off" maxlength="36" value={form.newAccount.accountId} />
        </label>
        <p class="muted">Opcional. O id está na página da conta, em Contas. Uma lista vazia faz a conta usar a padrão.</p>
        <WeightFields legend="Cobranças" prefix="newAccount.charges" weights={form.newAccount.charges} providerIds={providerIds} />
        <WeightFields legend="Saques" prefix="newAccount.withdrawals" weights={form.newAccount.withdrawals} providerIds={providerIds} />
      </fieldset>
      <button type="submit">Salvar regras</button>
    </form>
  );
}

const DAY_MS = 86_400_000;
const utcDate = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', dateStyle: 'short' });
const utcDateTime = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', dateStyle: 'short', timeStyle: 'short' });

/** A run's period as a person reads it, in UTC: whole days as days (the last one included), else its two instants. */
function periodText(from: number, to: number): string {
  if (from % DAY_MS === 0 && to % DAY_MS === 0) {
    const first = utcDate.format(from);
    const last = utcDate.format(to - DAY_MS);
    return first === last ? first : `${first} a ${last}`;
  }
  return `${utcDateTime.format(from)} a ${utcDateTime.format(to)}`;
}

/** Who asked for a run, as the page names it: the daily job, the automation token or the operator's e-mail. */
function requesterName(requestedBy: string, requesters: Record<string, string>): string {
  if (requestedBy === 'schedule') return 'Agendada';
  if (requestedBy === 'admin-token') return 'Token de operação';
  return requesters[requestedBy] ?? requestedBy;
}

const RUN_STATUS_NAMES: Record<RunView['status'], string> = { running: 'Em andamento', done: 'Concluída', failed: 'Falhou' };

const DIFFERENCE_NAMES: Record<DifferenceView['kind'], string> = {
  missing_at_psp: 'Falta no PSP',
  missing_in_ledger: 'Falta no razão',
  amount: 'Valor diferente',
  status: 'Situação diferente',
};

const MOVEMENT_NAMES: Record<DifferenceView['movement'], string> = { payment: 'PIX recebido', withdrawal: 'Saque', refund: 'Devolução' };

/** A movement's outcome on either side (the ledger's or the PSP's). */
const SIDE_STATUS_NAMES: Record<string, string> = { settled: 'Liquidado', failed: 'Falhou', pending: 'Pendente' };

/** A run's status as a word (the API's value as its title); a failed one in bold. */
const RunStatus = (props: { status: RunView['status'] }) => (
  <span class="status" title={props.status}>
    {props.status === 'failed' ? <strong safe>{RUN_STATUS_NAMES.failed}</strong> : <span safe>{RUN_STATUS_NAMES[props.status]}</span>}
  </span>
);

/** A cap in cents, or that there is none. */
const Cap = (props: { cents: number | null }) => (props.cents === null ? <span class="muted">Sem limite</span> : <Money cents={props.cents} />);

/**
 * Limites por transação (DESIGN.md §19): each provider's caps on one PIX as its PROVIDERS_FILE
 * entry declares them, and those in force now, which routing compares a new amount with.
 */
function CapsSection(props: { providers: ProviderHealth[] }) {
  return (
    <>
      <h2 id="limites">Limites por transação</h2>
      <p>
        O máximo que cada provedor aceita num único PIX, como o arquivo de provedores declara; no horário noturno (horário de Brasília) vale o menor limite. Um
        valor acima do limite em vigor vai para outro provedor da lista; se nenhum aceitar, a cobrança ou o saque é recusado sem nada registrado.
      </p>
      <DataTable label="Limites por transação dos provedores" columns={['Provedor', 'Cobrança', 'Saque', 'Noturno', 'Cobrança agora', 'Saque agora']}>
        {props.providers.map((provider) => (
          <tr>
            <td>
              <code safe>{provider.id}</code>
            </td>
            <td>
              <Cap cents={provider.caps.maxChargeCents} />
            </td>
            <td>
              <Cap cents={provider.caps.maxWithdrawalCents} />
            </td>
            <td>
              {provider.caps.night ? (
                <>
                  <span safe>{`das ${provider.caps.night.from} às ${provider.caps.night.to}: `}</span>
                  <Money cents={provider.caps.night.maxCents} />
                </>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
            <td>
              <Cap cents={provider.capNowCents.charge} />
            </td>
            <td>
              <Cap cents={provider.capNowCents.withdrawal} />
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** Money in and out on one side of a run, one line each (a line never breaks between its word and its amount). */
const InOut = (props: { inCents: number; outCents: number }) => (
  <>
    <span class="money">
      Entradas <Money cents={props.inCents} />
    </span>
    <br />
    <span class="money">
      Saídas <Money cents={props.outCents} />
    </span>
  </>
);

/** Where a run is read, and its report downloaded. */
const runHref = (runId: string): string => `/backoffice/provedores/conciliacao/${runId}`;

/** Tesouraria: each provider's money by the ledger against the balance the PSP reports, and (admin) a reading now. */
function TreasurySection(props: { context: PageContext; data: ProvidersData; configured: Set<string> }) {
  const { data } = props;
  return (
    <>
      <h2 id="tesouraria">Tesouraria</h2>
      <p>
        O que o razão diz que entrou e saiu por cada PSP, e o líquido que o PSP deveria ter para o gateway, contra o saldo que o próprio PSP informa. A
        cobertura é o saldo do PSP (sem ele, o líquido do razão): os saques vão primeiro aos provedores cuja cobertura basta. O worker lê a cada minuto.
      </p>
      {data.treasury.length === 0 ? (
        <p class="muted empty">
          Nenhuma leitura ainda: o worker lê os saldos a cada minuto.{' '}
          {data.mayRefreshTreasury ? 'Para ler agora, use Ler saldos agora abaixo.' : 'Um operador admin pode ler agora.'}
        </p>
      ) : (
        <DataTable
          label="Tesouraria dos provedores"
          columns={['Provedor', 'Entradas (razão)', 'Saídas (razão)', 'Líquido (razão)', 'Saldo no PSP', 'Cobertura', 'Mínimo', 'Situação', 'Lido em']}
        >
          {data.treasury.map((reading) => (
            <tr>
              <td>
                <ProviderName providerId={reading.providerId} configured={props.configured.has(reading.providerId)} />
              </td>
              <td>
                <Money cents={reading.ledgerInCents} />
              </td>
              <td>
                <Money cents={reading.ledgerOutCents} />
              </td>
              <td>
                <Money cents={reading.ledgerNetCents} />
              </td>
              <td>
                {reading.reportedCents === null ? (
                  <>
                    —
                    {reading.readError ? (
                      <>
                        <br />
                        <span class="muted" safe>{`Não lido: ${reading.readError}`}</span>
                      </>
                    ) : (
                      <>
                        <br />
                        <span class="muted">O PSP não informa saldo.</span>
                      </>
                    )}
                  </>
                ) : (
                  <Money cents={reading.reportedCents} />
                )}
              </td>
              <td>
                <Money cents={reading.coverCents} />
              </td>
              <td>{reading.lowCoverCents > 0 ? <Money cents={reading.lowCoverCents} /> : <span class="muted">Sem mínimo</span>}</td>
              <td>
                {reading.low ? (
                  <strong class="status" title="low">
                    Abaixo do mínimo
                  </strong>
                ) : (
                  <span class="status">Coberto</span>
                )}
              </td>
              <td safe>{formatDate(reading.readAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {data.mayRefreshTreasury ? (
        <ActionForm action="/backoffice/provedores/tesouraria" csrfToken={props.context.csrfToken} submit="Ler saldos agora" />
      ) : (
        <ReadOnly role={props.context.user?.role ?? ''} />
      )}
    </>
  );
}

/** The form that runs a reconciliation now (admin). */
const ReconcileForm = (props: { context: PageContext; data: ProvidersData }) => {
  const form = props.data.reconciliationForm;
  return (
    <form class="stack" method="post" action="/backoffice/provedores/conciliacao">
      <CsrfField token={props.context.csrfToken} />
      <label>
        Provedor
        <select name="providerId">
          <option value="" selected={form.providerId === ''}>
            Todos os provedores
          </option>
          {props.data.providers.map((provider) => (
            <option value={provider.id} selected={form.providerId === provider.id} safe>
              {provider.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        Do dia (UTC)
        <input type="date" name="de" required value={form.from} />
      </label>
      <label>
        Até o dia (UTC, incluído)
        <input type="date" name="ate" required value={form.to} />
      </label>
      <p class="muted">De 00:00 UTC do primeiro dia a 00:00 UTC do dia seguinte ao último; no máximo 31 dias.</p>
      <button type="submit">Conciliar agora</button>
    </form>
  );
};

/** Conciliação: the latest runs, each one click from its differences, and (admin) a run now. */
function ReconciliationSection(props: { context: PageContext; data: ProvidersData; configured: Set<string> }) {
  const { data } = props;
  return (
    <>
      <h2 id="conciliacao">Conciliação</h2>
      <p>
        O razão comparado com os registros de cada PSP num período: o que falta de um dos lados, valores e situações diferentes. O worker concilia sozinho o dia
        anterior (UTC) de cada provedor, uma vez por dia; cada execução tem um relatório em CSV para a contabilidade.
      </p>
      <h3>Últimas conciliações</h3>
      {data.runs.length === 0 ? (
        <p class="muted empty">
          Nenhuma conciliação ainda: o worker concilia o dia anterior uma vez por dia.{' '}
          {data.mayReconcile ? (
            <>
              Para conciliar agora, use <a href="#conciliar-agora">Conciliar agora</a> abaixo.
            </>
          ) : (
            'Um operador admin pode conciliar agora.'
          )}
        </p>
      ) : (
        <DataTable label="Últimas conciliações" columns={['Período (UTC)', 'Provedor', 'Pedida por', 'Situação', 'Conferidos', 'Diferenças', 'Razão', 'PSP']}>
          {data.runs.map((run) => (
            <tr>
              <td>
                <a href={runHref(run.runId)} safe>
                  {periodText(run.from, run.to)}
                </a>
              </td>
              <td>
                <ProviderName providerId={run.providerId} configured={props.configured.has(run.providerId)} />
              </td>
              <td safe>{requesterName(run.requestedBy, data.requesters)}</td>
              <td>
                <RunStatus status={run.status} />
                {run.error ? (
                  <>
                    <br />
                    <span class="muted" safe>
                      {run.error}
                    </span>
                  </>
                ) : (
                  ''
                )}
              </td>
              {run.status === 'done' ? (
                <>
                  <td safe>{String(run.matched)}</td>
                  <td>{run.differenceCount > 0 ? <strong safe>{String(run.differenceCount)}</strong> : '0'}</td>
                  <td>
                    <InOut inCents={run.ledgerInCents} outCents={run.ledgerOutCents} />
                  </td>
                  <td>
                    <InOut inCents={run.pspInCents} outCents={run.pspOutCents} />
                  </td>
                </>
              ) : (
                // Nothing was compared (yet): no figures that could read as "all equal".
                <>
                  <td>—</td>
                  <td>—</td>
                  <td>—</td>
                  <td>—</td>
                </>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <h3 id="conciliar-agora">Conciliar agora</h3>
      {data.mayReconcile ? <ReconcileForm context={props.context} data={data} /> : <ReadOnly role={props.context.user?.role ?? ''} />}
    </>
  );
}

export type RunPageData = { run: RunView; differences: DifferenceView[]; requesters: Record<string, string>; accountNames: Record<string, string> };

/** One side of a difference: its amount and outcome, or a dash when the side has no record. */
const Side = (props: { cents: number | null; status: string | null }) =>
  props.cents === null && props.status === null ? (
    <span class="muted">Não consta</span>
  ) : (
    <>
      {props.cents === null ? '—' : <Money cents={props.cents} />}
      <br />
      <span class="muted" safe>
        {props.status === null ? '' : (SIDE_STATUS_NAMES[props.status] ?? props.status)}
      </span>
    </>
  );

/** A run's totals by side, and the gap between them. */
const TotalsTable = (props: { run: RunView }) => (
  <DataTable label="Totais do período" columns={['Total', 'Razão', 'PSP', 'PSP − razão']}>
    {(
      [
        ['Entradas', props.run.ledgerInCents, props.run.pspInCents],
        ['Saídas', props.run.ledgerOutCents, props.run.pspOutCents],
      ] as const
    ).map(([label, ledger, psp]) => (
      <tr>
        <th scope="row">{label}</th>
        <td>
          <Money cents={ledger} />
        </td>
        <td>
          <Money cents={psp} />
        </td>
        <td>{psp === ledger ? <span class="muted">nenhuma</span> : <Money cents={psp - ledger} />}</td>
      </tr>
    ))}
  </DataTable>
);

/** One reconciliation run: what it compared, its totals, the report, and every difference it found. */
export function ReconciliationRunPage(props: { context: PageContext; data: RunPageData }) {
  const { run, differences, accountNames } = props.data;
  return (
    <Page
      context={props.context}
      title={`Conciliação de ${run.providerId}: ${periodText(run.from, run.to)}`}
      error={
        run.status === 'failed'
          ? `O PSP não listou seus registros: ${run.error ?? 'motivo não informado'}. Concilie o período de novo em Provedores quando ele responder.`
          : undefined
      }
    >
      <p>
        <a href="/backoffice/provedores#conciliacao">Voltar a Provedores</a>
      </p>
      <dl>
        <dt>Provedor</dt>
        <dd>
          <code safe>{run.providerId}</code>
        </dd>
        <dt>Período (UTC)</dt>
        <dd safe>{`${utcDateTime.format(run.from)} a ${utcDateTime.format(run.to)} (o fim não entra)`}</dd>
        <dt>Pedida por</dt>
        <dd safe>{requesterName(run.requestedBy, props.data.requesters)}</dd>
        <dt>Situação</dt>
        <dd>
          <RunStatus status={run.status} />
        </dd>
        <dt>Início</dt>
        <dd safe>{formatDate(run.startedAt)}</dd>
        <dt>Fim</dt>
        <dd safe>{run.finishedAt === null ? '—' : formatDate(run.finishedAt)}</dd>
        {run.status === 'done' ? (
          <>
            <dt>Conferidos</dt>
            <dd safe>{String(run.matched)}</dd>
            <dt>Diferenças</dt>
            <dd safe>{String(run.differenceCount)}</dd>
          </>
        ) : (
          ''
        )}
      </dl>
      {run.status === 'running' ? <p class="muted">Em andamento: recarregue a página em instantes.</p> : ''}
      {run.status === 'done' ? <RunResult run={run} differences={differences} accountNames={accountNames} /> : ''}
    </Page>
  );
}

/** What a finished run found: the report, the totals by side and every difference. */
function RunResult(props: { run: RunView; differences: DifferenceView[]; accountNames: Record<string, string> }) {
  const { run, differences, accountNames } = props;
  return (
    <>
      <p>
        <a href={`${runHref(run.runId)}.csv`}>Baixar relatório (CSV)</a>
        <span class="muted">: os totais e uma linha por diferença, para a contabilidade (valores em reais com ponto: 1234.56).</span>
      </p>

      <h2>Totais</h2>
      <TotalsTable run={run} />

      <h2>Diferenças</h2>
      {differences.length === 0 ? (
        <p class="muted empty">Nenhuma diferença: o razão e o PSP conferem neste período.</p>
      ) : (
        <>
          <DataTable label="Diferenças" columns={['Tipo', 'Movimento', 'Referência', 'Conta', 'Razão', 'PSP']}>
            {differences.map((difference) => (
              <tr>
                <td>
                  <strong class="status" title={difference.kind} safe>
                    {DIFFERENCE_NAMES[difference.kind]}
                  </strong>
                </td>
                <td safe>{MOVEMENT_NAMES[difference.movement]}</td>
                <td>
                  <code safe>{difference.reference}</code>
                  {difference.transactionId && difference.transactionId !== difference.reference ? (
                    <>
                      <br />
                      <span class="muted">transação </span>
                      <code safe>{difference.transactionId}</code>
                    </>
                  ) : (
                    ''
                  )}
                </td>
                <td>{difference.accountId ? <AccountLink accountId={difference.accountId} name={accountNames[difference.accountId]} /> : '—'}</td>
                <td>
                  <Side cents={difference.ledgerCents} status={difference.ledgerStatus} />
                </td>
                <td>
                  <Side cents={difference.pspCents} status={difference.pspStatus} />
                </td>
              </tr>
            ))}
          </DataTable>
          <ul class="muted">
            <li>Falta no PSP: o razão conta um movimento liquidado que o PSP não lista — confirme com o PSP.</li>
            <li>
              Falta no razão: o PSP lista um movimento que o gateway não conhece em nenhum período — nunca é corrigido sozinho; a equipe decide (um ajuste, uma
              devolução no PSP).
            </li>
            <li>Valor diferente: os dois lados têm o movimento com valores diferentes; o valor do PSP é o que se moveu.</li>
            <li>
              Situação diferente: liquidado de um lado e falho do outro, ou pendente aqui e já decidido lá (as verificações de envios pendentes o resolvem).
            </li>
          </ul>
        </>
      )}
    </>
  );
}

/**
 * Provedores (DESIGN.md §14): each configured PSP's health as this process sees it, its treasury
 * (a reading now: admin), the latest reconciliation runs (a run now: admin), the routing rules in
 * force (default lists and accounts' own), and the form that replaces them (admin).
 */
export function ProvidersPage(props: { context: PageContext; data: ProvidersData; error?: string | undefined; notice?: string | undefined }) {
  const { context, data } = props;
  const configured = new Set(data.providers.map((provider) => provider.id));
  const accountRules = Object.entries(data.rules.accounts);
  return (
    <Page context={context} title="Provedores" error={props.error} notice={props.notice}>
      <p>Os PSPs que emitem as cobranças e enviam os saques: sua saúde, o dinheiro em cada um, a conciliação com o razão e como o tráfego novo é dividido.</p>
      <nav aria-label="Nesta página">
        <p>
          Nesta página: <a href="#saude">Saúde</a> · <a href="#limites">Limites por transação</a> · <a href="#tesouraria">Tesouraria</a> ·{' '}
          <a href="#conciliacao">Conciliação</a> · <a href="#regras">Regras de roteamento</a>
        </p>
      </nav>

      <h2 id="saude">Saúde</h2>
      <p>
        Como <strong>este processo</strong> do gateway vê cada provedor, pelas próprias chamadas desde que iniciou: outro processo pode ver outro estado.
        Recarregue a página para atualizar.
      </p>
      <DataTable label="Saúde dos provedores" columns={['Provedor', 'Estado', 'Último erro', 'Latência p50', 'Latência p99', 'Tipo']}>
        {data.providers.map((provider) => (
          <tr>
            <td>
              <code safe>{provider.id}</code>
            </td>
            <td>
              <StateBadge state={provider.state} />
            </td>
            <td>
              {provider.lastError ? (
                <>
                  <span safe>{provider.lastError.message}</span>
                  <br />
                  <span class="muted" safe>{`em ${formatDate(provider.lastError.at)}`}</span>
                </>
              ) : (
                '—'
              )}
            </td>
            <td safe>{latency(provider.latencyMsP50)}</td>
            <td safe>{latency(provider.latencyMsP99)}</td>
            <td safe>{KIND_NAMES[provider.kind] ?? provider.kind}</td>
          </tr>
        ))}
      </DataTable>
      <ul class="muted">
        <li>No ar: recebe sua parte das cobranças e saques novos.</li>
        <li>Instável: mais de 10% das chamadas recentes falharam; ainda recebe tráfego.</li>
        <li>Fora do ar: não recebe nada novo enquanto houver outro provedor no ar; uma tentativa de teste de tempos em tempos o traz de volta.</li>
      </ul>

      <CapsSection providers={data.providers} />

      <TreasurySection context={context} data={data} configured={configured} />

      <ReconciliationSection context={context} data={data} configured={configured} />

      <h2 id="regras">Regras de roteamento</h2>
      <p>
        Cada cobrança ou saque novo vai para um provedor da lista que se aplica (a da conta, se ela tiver uma; senão a padrão), sorteado pelo peso entre os que
        estão no ar. Uma transação fica sempre com o provedor que a emitiu.
      </p>
      <div class="cards">
        <section class="card" aria-labelledby="lista-cobrancas">
          <h3 id="lista-cobrancas">Cobranças (lista padrão)</h3>
          <RulesTable label="Cobranças: lista padrão" list={data.rules.charges} configured={configured} />
        </section>
        <section class="card" aria-labelledby="lista-saques">
          <h3 id="lista-saques">Saques (lista padrão)</h3>
          <RulesTable label="Saques: lista padrão" list={data.rules.withdrawals} configured={configured} />
        </section>
      </div>
      <h3>Contas com regras próprias</h3>
      {accountRules.length === 0 ? (
        <p class="muted empty">
          Nenhuma conta com regras próprias: todas usam as listas padrão.{' '}
          {data.mayEdit ? (
            <>
              Para dar a uma conta a sua, use <a href="#alterar-regras">Alterar regras</a> abaixo.
            </>
          ) : (
            <>Um operador admin pode dar a uma conta a sua.</>
          )}
        </p>
      ) : (
        <DataTable label="Contas com regras próprias" columns={['Conta', 'Cobranças', 'Saques']}>
          {accountRules.map(([accountId, own]) => (
            <tr>
              <td>
                <AccountLink accountId={accountId} name={data.accountNames[accountId]} />
              </td>
              <td>
                <ListCell list={own.charges} />
              </td>
              <td>
                <ListCell list={own.withdrawals} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2 id="alterar-regras">Alterar regras</h2>
      {data.mayEdit ? <RulesForm context={context} data={data} /> : <ReadOnly role={context.user?.role ?? ''} />}
    </Page>
  );
}
