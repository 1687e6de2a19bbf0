import { CsrfField, DataTable, formatDate, type PageContext } from '../pages/components.js';
import type { RoutingRules, RoutingTarget } from '../platform/schema.js';
import type { ProviderHealth } from '../provider/registry.js';
import { AccountLink, Page, ReadOnly } from './views.js';

/** A list's weights as the form holds them, by provider id ('' or 0 = not in the list). */
export type WeightsForm = Record<string, string>;

/** One account's own lists in the form: empty everywhere = the account uses the default lists. */
export type AccountWeightsForm = { accountId: string; charges: WeightsForm; withdrawals: WeightsForm };

/** The routing rules as the form shows them (the rules in force, or what the operator typed when refused). */
export type RoutingForm = { charges: WeightsForm; withdrawals: WeightsForm; accounts: AccountWeightsForm[]; newAccount: AccountWeightsForm };

export type ProvidersData = {
  providers: ProviderHealth[];
  rules: RoutingRules;
  /** The names of the accounts the rules and the form name (an account not found keeps its id). */
  accountNames: Record<string, string>;
  mayEdit: boolean;
  form: RoutingForm;
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

/**
 * Provedores (DESIGN.md §14): each configured PSP's health as this process sees it, the routing
 * rules in force (default lists and accounts' own), and the form that replaces them (admin).
 */
export function ProvidersPage(props: { context: PageContext; data: ProvidersData; error?: string | undefined; notice?: string | undefined }) {
  const { context, data } = props;
  const configured = new Set(data.providers.map((provider) => provider.id));
  const accountRules = Object.entries(data.rules.accounts);
  return (
    <Page context={context} title="Provedores" error={props.error} notice={props.notice}>
      <p>Os PSPs que emitem as cobranças e enviam os saques, e como o tráfego novo é dividido entre eles.</p>

      <h2>Saúde</h2>
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

      <h2>Regras de roteamento</h2>
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
