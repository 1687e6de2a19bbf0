import { CsrfField, formatDate, DataTable, Money, type PageContext } from '../pages/components.js';
import type { WebhookDeliveryStatus } from '../platform/schema.js';
import { LIMIT_NAMES, type presentAccount } from '../accounts/model.js';
import { PIX_KEY_TYPES } from '../pix/pixKeys.js';
import type { TeamMember } from '../users/service.js';
import { USER_ROLES } from '../users/service.js';
import { AccountLink, ActionForm, InviteLinkNotice, Page, ReadOnly } from './views.js';

export type AccountSummary = { accountId: string; name: string; email: string; kycStatus: string; blocked: boolean; withdrawalMode: string; createdAt: number };

export function AccountsPage(props: { context: PageContext; accounts: AccountSummary[]; search: string; mayCreate: boolean; error?: string | undefined }) {
  const { context } = props;
  return (
    <Page context={context} title="Contas" error={props.error}>
      <form class="filters" method="get" action="/backoffice/contas">
        <label>
          Nome ou e-mail
          <input name="busca" value={props.search} autocomplete="off" />
        </label>
        <button type="submit">Buscar</button>
      </form>
      {props.accounts.length === 0 ? (
        <p class="muted empty">
          {props.search ? (
            <>
              Nenhuma conta com esse nome ou e-mail. <a href="/backoffice/contas">Ver todas as contas</a>.
            </>
          ) : props.mayCreate ? (
            <>
              Nenhuma conta ainda. Crie a primeira em <a href="#nova-conta">Nova conta</a>.
            </>
          ) : (
            <>Nenhuma conta ainda. Um operador admin cria as contas dos lojistas.</>
          )}
        </p>
      ) : (
        <DataTable label="Contas" columns={['Conta', 'E-mail', 'KYC', 'Saques', 'Criada em']}>
          {props.accounts.map((account) => (
            <tr>
              <td>
                <AccountLink accountId={account.accountId} name={account.name} />
                {account.blocked ? <strong> (bloqueada)</strong> : ''}
              </td>
              <td safe>{account.email}</td>
              <td safe>{KYC_NAMES[account.kycStatus] ?? account.kycStatus}</td>
              <td>{account.withdrawalMode === 'manual' ? 'Aprovação manual' : 'Automáticos'}</td>
              <td safe>{formatDate(account.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2 id="nova-conta">Nova conta</h2>
      {props.mayCreate ? (
        <form class="stack" method="post" action="/backoffice/contas">
          <CsrfField token={context.csrfToken} />
          <label>
            Nome da loja
            <input name="name" required maxlength="120" autocomplete="off" />
          </label>
          <label>
            E-mail
            <input type="email" name="email" required autocomplete="off" />
          </label>
          <label>
            Cidade
            <input name="city" maxlength="60" autocomplete="off" />
          </label>
          <label>
            Responsável: nome
            <input name="responsibleName" required maxlength="120" autocomplete="off" />
          </label>
          <label>
            Responsável: CPF
            <input name="responsibleCpf" required inputmode="numeric" autocomplete="off" />
          </label>
          <label>
            Razão social (opcional)
            <input name="legalName" maxlength="120" autocomplete="off" />
          </label>
          <label>
            CNPJ (opcional)
            <input name="cnpj" autocomplete="off" autocapitalize="characters" spellcheck="false" />
          </label>
          <button type="submit">Criar conta</button>
        </form>
      ) : (
        <ReadOnly role={context.user?.role ?? ''} />
      )}
    </Page>
  );
}

const KYC_NAMES: Record<string, string> = { approved: 'Aprovado', pending: 'Pendente', rejected: 'Recusado' };

const LIMIT_LABELS: Record<(typeof LIMIT_NAMES)[number], string> = {
  pixPerHour: 'Cobranças por hora',
  withdrawPerSecond: 'Saques por segundo',
  withdrawPerMinute: 'Saques por minuto',
  withdrawPerHour: 'Saques por hora',
  recipientsPerHour: 'Destinatários por hora',
  chargeMinCents: 'Cobrança mínima (centavos)',
  chargeMaxCents: 'Cobrança máxima (centavos)',
  withdrawMinCents: 'Saque mínimo (centavos)',
  withdrawMaxCents: 'Saque máximo (centavos)',
  withdrawDailyCents: 'Saques por dia (centavos)',
  withdrawMonthlyCents: 'Saques por mês (centavos)',
};

const FEE_PARTS = [
  ['fixedCents', 'fixa (centavos)'],
  ['bps', 'percentual (bps: 100 = 1%)'],
  ['minCents', 'mínima (centavos)'],
  ['maxCents', 'máxima (centavos)'],
] as const;

const companyOf = (account: AccountData['account']): string => (account.company ? `${account.company.legalName} · CNPJ ${account.company.cnpj}` : '—');

export type BlockView = {
  blockId: string;
  amountCents: number;
  reason: string;
  status: string;
  /** `fraud_mark`: a PIX from a fraud-marked payer, held for the operator (docs/fraud-marks.md); `cautionary`: a PIX the PSP holds (docs/refunds.md), released with its hold. */
  kind: string;
  infractionId: string | null;
  createdAt: number;
  releasedAt: number | null;
};

/** One webhook attempt: its own answer (`httpStatus`, `error`) and where its delivery stands now (`status`). */
export type AttemptView = {
  deliveryId: string;
  event: string;
  url: string;
  status: WebhookDeliveryStatus;
  httpStatus: number | null;
  error: string | null;
  at: number;
};

/** The most characters of an attempt's error shown in the table; the rest is in the title. */
const ERROR_CHARACTERS = 120;

/**
 * What an attempt got: delivered (2xx) or failed, with its HTTP status (or none: a network error,
 * a timeout), and whether the delivery will be tried again; then the error's text, cut short.
 */
function AttemptResult(props: { attempt: AttemptView }) {
  const { httpStatus, error, status } = props.attempt;
  const answer = httpStatus === null ? 'sem resposta' : `HTTP ${httpStatus}`;
  const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
  const result = delivered ? `Entregue (${answer})` : `Falhou (${answer})${status === 'pending' ? '; nova tentativa agendada' : ''}`;
  return (
    <>
      <span safe>{result}</span>
      {error ? (
        <>
          <br />
          <span class="muted wrap-anywhere" title={error} safe>
            {error.length > ERROR_CHARACTERS ? `${error.slice(0, ERROR_CHARACTERS - 1)}…` : error}
          </span>
        </>
      ) : (
        ''
      )}
    </>
  );
}

export type AccountData = {
  account: ReturnType<typeof presentAccount>;
  balance: { available: number; blocked: number; withdrawable: number; owed: number; shortfall: number };
  blocks: BlockView[];
  members: TeamMember[];
  attempts: AttemptView[];
  may: { kyc: boolean; accounts: boolean; blocks: boolean; adjustments: boolean; webhookResend: boolean };
  invited?: { email: string; inviteUrl: string } | undefined;
};

/** One account: its state and every operator action on it, by section. */
export function AccountPage(props: { context: PageContext; data: AccountData; error?: string | undefined; notice?: string | undefined }) {
  const { data, context } = props;
  const { account } = data;
  const base = `/backoffice/contas/${account.accountId}`;
  const role = context.user?.role ?? '';
  return (
    <Page context={context} title={`Conta ${account.name}`} error={props.error} notice={props.notice}>
      <p>
        <a href={`/backoffice/auditoria?conta=${account.accountId}`}>Auditoria desta conta</a> ·{' '}
        <a href={`/backoffice/destinatarios?conta=${account.accountId}`}>Destinatários desta conta</a>
      </p>
      <dl>
        <dt>Id</dt>
        <dd>
          <code safe>{account.accountId}</code>
        </dd>
        <dt>E-mail</dt>
        <dd safe>{`${account.email}${account.emailVerified ? ' (verificado)' : ' (não verificado)'}`}</dd>
        <dt>Responsável</dt>
        <dd safe>{`${account.responsible.name} · CPF ${account.responsible.cpf}`}</dd>
        <dt>Empresa</dt>
        <dd safe>{companyOf(account)}</dd>
        <dt>KYC</dt>
        <dd safe>{KYC_NAMES[account.kycStatus] ?? account.kycStatus}</dd>
        <dt>Conta</dt>
        <dd>{account.blocked ? 'Bloqueada' : 'Ativa'}</dd>
      </dl>
      <div class="cards">
        <div class="card">
          <div class="label">Disponível</div>
          <div class="value">
            <Money cents={data.balance.available} />
          </div>
        </div>
        <div class="card">
          <div class="label">Bloqueado</div>
          <div class="value">
            <Money cents={data.balance.blocked} />
          </div>
        </div>
        <div class="card">
          <div class="label">Sacável</div>
          <div class="value">
            <Money cents={data.balance.withdrawable} />
          </div>
        </div>
        <div class="card">
          <div class="label">Devido (MED)</div>
          <div class="value">
            <Money cents={data.balance.owed} />
          </div>
        </div>
        <div class="card">
          <div class="label">Falta bloquear (MED)</div>
          <div class="value">
            <Money cents={data.balance.shortfall} />
          </div>
        </div>
      </div>

      <h2>Situação (KYC e bloqueio)</h2>
      {data.may.kyc ? (
        <form class="stack" method="post" action={`${base}/situacao`}>
          <CsrfField token={context.csrfToken} />
          <label>
            KYC
            <select name="kycStatus">
              {Object.entries(KYC_NAMES).map(([value, name]) => (
                <option value={value} selected={account.kycStatus === value} safe>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>
              <input type="checkbox" name="blocked" value="true" checked={account.blocked} /> Conta bloqueada (nenhuma operação)
            </span>
          </label>
          <label>
            <span>
              <input type="checkbox" name="emailVerified" value="true" checked={account.emailVerified} /> E-mail verificado
            </span>
          </label>
          <button type="submit">Salvar situação</button>
        </form>
      ) : (
        <ReadOnly role={role} />
      )}

      <h2>Configuração</h2>
      {data.may.accounts ? (
        <form class="stack" method="post" action={`${base}/configuracao`}>
          <CsrfField token={context.csrfToken} />
          <label>
            Saques
            <select name="withdrawalMode">
              <option value="automatic" selected={account.withdrawalMode === 'automatic'}>
                Automáticos
              </option>
              <option value="manual" selected={account.withdrawalMode === 'manual'}>
                Aprovação manual
              </option>
            </select>
          </label>
          <label>
            IPs permitidos na API (um por linha; vazio = sem restrição)
            <textarea name="ipAllowlist" rows="3" safe>
              {account.ipAllowlist.join('\n')}
            </textarea>
          </label>
          <fieldset>
            <legend>Tipos de chave PIX aceitos em saques</legend>
            {PIX_KEY_TYPES.map((type) => (
              <label>
                <span>
                  <input type="checkbox" name="allowedPixKeyTypes" value={type} checked={account.allowedPixKeyTypes.includes(type)} /> {type}
                </span>
              </label>
            ))}
          </fieldset>
          <label>
            Máximo de destinatários
            <input name="recipientLimit" inputmode="numeric" value={String(account.recipientLimit)} />
          </label>
          <fieldset>
            <legend>Limites</legend>
            {LIMIT_NAMES.map((name) => (
              <label>
                <span safe>{LIMIT_LABELS[name]}</span>
                <input name={`limits.${name}`} inputmode="numeric" value={String(account.limits[name] ?? '')} />
              </label>
            ))}
          </fieldset>
          {(['pixIn', 'withdrawal'] as const).map((plan) => (
            <fieldset>
              <legend>{plan === 'pixIn' ? 'Tarifa de cobrança recebida' : 'Tarifa de saque'}</legend>
              {FEE_PARTS.map(([part, label]) => (
                <label>
                  <span safe>{`Tarifa ${label}`}</span>
                  <input name={`fees.${plan}.${part}`} inputmode="numeric" value={String(account.fees[plan][part])} />
                </label>
              ))}
            </fieldset>
          ))}
          <button type="submit">Salvar configuração</button>
        </form>
      ) : (
        <ReadOnly role={role} />
      )}

      <h2>Bloqueios de saldo</h2>
      {data.blocks.length === 0 ? (
        <p class="muted empty">
          {data.may.blocks ? (
            <>
              Nenhum bloqueio. Para reter parte do saldo (sem sacar), use <a href="#novo-bloqueio">Bloquear</a> abaixo.
            </>
          ) : (
            <>Nenhum bloqueio. Os casos MED e a equipe de compliance bloqueiam saldo quando preciso.</>
          )}
        </p>
      ) : (
        <DataTable label="Bloqueios" columns={['Valor', 'Motivo', 'Situação', 'Desde', data.may.blocks && 'Ação']}>
          {data.blocks.map((block) => (
            <tr>
              <td>
                <Money cents={block.amountCents} />
              </td>
              <td safe>{block.kind === 'fraud_mark' ? `Pagador com marcação de fraude: ${block.reason}` : block.reason}</td>
              <td safe>{block.status === 'active' ? 'Ativo' : `Liberado em ${formatDate(block.releasedAt ?? block.createdAt)}`}</td>
              <td safe>{formatDate(block.createdAt)}</td>
              {data.may.blocks ? (
                <td>
                  {block.status !== 'active' ? (
                    ''
                  ) : block.infractionId ? (
                    <span class="muted">Liberado com o caso MED</span>
                  ) : block.kind === 'cautionary' ? (
                    <span class="muted">Liberado com a retenção do PIX (POST /admin/v1/transactions/…/hold/release)</span>
                  ) : (
                    <ActionForm action={`${base}/bloqueios/${block.blockId}/liberar`} csrfToken={context.csrfToken} submit="Liberar" />
                  )}
                </td>
              ) : (
                ''
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {data.may.blocks ? (
        <form id="novo-bloqueio" class="stack" method="post" action={`${base}/bloqueios`}>
          <CsrfField token={context.csrfToken} />
          <label>
            Valor a bloquear (R$)
            <input name="amount" inputmode="decimal" required autocomplete="off" />
          </label>
          <label>
            Motivo do bloqueio
            <input name="reason" required maxlength="500" autocomplete="off" />
          </label>
          <button type="submit">Bloquear</button>
        </form>
      ) : (
        ''
      )}

      <h2>Ajuste de saldo</h2>
      {data.may.adjustments ? (
        <form class="stack" method="post" action={`${base}/ajustes`}>
          <CsrfField token={context.csrfToken} />
          <label>
            Valor (R$; negativo para debitar, ex.: -10,00)
            <input name="amount" required autocomplete="off" />
          </label>
          <label>
            Motivo do ajuste
            <input name="reason" required maxlength="500" autocomplete="off" />
          </label>
          <button type="submit">Lançar ajuste</button>
        </form>
      ) : (
        <ReadOnly role={role} />
      )}

      <h2>Usuários do painel</h2>
      <InviteLinkNotice invited={data.invited} />
      {data.members.length === 0 ? (
        <p class="muted empty">
          {data.may.accounts ? (
            <>
              Nenhum usuário ainda. Convide o primeiro dono em <a href="#novo-usuario">Convidar usuário</a>: ele recebe um link que vale 72 horas.
            </>
          ) : (
            <>Nenhum usuário ainda. Um operador admin convida o primeiro dono da conta.</>
          )}
        </p>
      ) : (
        <ul>
          {data.members.map((member) => (
            <li safe>{`${member.email} · ${member.role}${member.invitationPending ? ' · convite pendente' : ''}${member.totpEnrolled ? ' · 2FA' : ''}`}</li>
          ))}
        </ul>
      )}
      {data.may.accounts ? (
        <form id="novo-usuario" class="stack" method="post" action={`${base}/usuarios`}>
          <CsrfField token={context.csrfToken} />
          <label>
            E-mail do usuário
            <input type="email" name="email" required maxlength="254" autocomplete="off" />
          </label>
          <label>
            Papel no painel
            <select name="role">
              {USER_ROLES.map((userRole) => (
                <option value={userRole}>{userRole}</option>
              ))}
            </select>
          </label>
          <button type="submit">Convidar usuário</button>
        </form>
      ) : (
        ''
      )}

      <h2>Entregas de webhook</h2>
      {data.attempts.length === 0 ? (
        <p class="muted empty">Nenhuma entrega. As tentativas de webhook da conta aparecem aqui depois que o lojista cadastrar uma URL (painel ou API).</p>
      ) : (
        <DataTable label="Entregas de webhook" columns={['Quando', 'Evento', 'URL', 'Resultado', data.may.webhookResend && 'Ação']}>
          {data.attempts.map((attempt) => (
            <tr>
              <td safe>{formatDate(attempt.at)}</td>
              <td safe>{attempt.event}</td>
              <td safe>{attempt.url}</td>
              <td>
                <AttemptResult attempt={attempt} />
              </td>
              {data.may.webhookResend ? (
                <td>
                  <ActionForm action={`${base}/webhooks/${attempt.deliveryId}/reenviar`} csrfToken={context.csrfToken} submit="Reenviar" />
                </td>
              ) : (
                ''
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}
