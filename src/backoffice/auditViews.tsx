import { ADMIN_TOKEN_ACTOR } from '../platform/adminAuth.js';
import { DataTable, formatDate, statusName, type PageContext } from '../pages/components.js';
import type { AuditChanges } from '../platform/schema.js';
import { formatBrl } from '../messages.js';
import { AccountLink, Page } from './views.js';

/**
 * Each audited action as the Auditoria page names it, by the operator API route it equals (or the
 * back-office route of an action on operators, which has no API route). One place: a new audited
 * route gets its label here (test/backoffice/pages.test.ts checks every route of the operator API
 * that changes something has one).
 */
export const AUDIT_ACTION_LABELS: Readonly<Record<string, string>> = {
  'POST /admin/v1/accounts': 'Conta criada',
  'PATCH /admin/v1/accounts/:accountId': 'Conta alterada',
  'POST /admin/v1/accounts/:accountId/api-keys': 'Chave de API criada',
  'DELETE /admin/v1/api-keys/:keyId': 'Chave de API revogada',
  'PATCH /admin/v1/api-keys/:keyId': 'IPs da chave de API alterados',
  'POST /admin/v1/accounts/:accountId/users': 'Usuário do painel convidado',
  'POST /admin/v1/accounts/:accountId/adjustments': 'Ajuste de saldo lançado',
  'POST /admin/v1/accounts/:accountId/blocks': 'Saldo bloqueado',
  'DELETE /admin/v1/blocks/:blockId': 'Bloqueio liberado',
  'POST /admin/v1/fraud-marks': 'Marcação de fraude criada',
  'DELETE /admin/v1/fraud-marks/:id': 'Marcação de fraude removida',
  'POST /admin/v1/accounts/:accountId/recipients/:recipientId/approve': 'Destinatário aprovado',
  'POST /admin/v1/accounts/:accountId/recipients/:recipientId/reject': 'Destinatário recusado',
  'POST /admin/v1/accounts/:accountId/recipients/:recipientId/deactivate': 'Destinatário desativado',
  'POST /admin/v1/transactions/:id/approve': 'Saque aprovado',
  'POST /admin/v1/transactions/:id/reject': 'Saque recusado',
  'POST /admin/v1/transactions/:id/cancel': 'Cobrança cancelada',
  'POST /admin/v1/transactions/:id/infractions': 'Caso MED aberto',
  'POST /admin/v1/transactions/:id/hold/release': 'Bloqueio cautelar liberado (PIX retido pelo PSP)',
  'POST /admin/v1/transactions/:id/hold/return': 'PIX retido devolvido pelo PSP ao pagador',
  'POST /admin/v1/infractions/:id/analysis': 'Caso MED em análise',
  'POST /admin/v1/infractions/:id/accept': 'Caso MED aceito (valor devolvido)',
  'POST /admin/v1/infractions/:id/reject': 'Caso MED rejeitado (valor liberado)',
  'POST /admin/v1/accounts/:accountId/webhook-endpoints': 'URL de webhook cadastrada',
  'DELETE /admin/v1/accounts/:accountId/webhook-endpoints/:endpointId': 'URL de webhook excluída',
  'POST /admin/v1/webhook-endpoints/:endpointId/rotate-secret': 'Segredo de webhook trocado',
  'POST /admin/v1/webhook-deliveries/:deliveryId/resend': 'Webhook reenviado',
  'POST /admin/v1/operators': 'Operador convidado',
  'PUT /admin/v1/routing': 'Regras de roteamento alteradas',
  'POST /admin/v1/reconciliation': 'Conciliação com PSP executada',
  'POST /admin/v1/treasury/refresh': 'Saldos dos PSPs lidos',
  'POST /sandbox/v1/providers/:providerId/outage': 'Pane simulada de provedor',
  'PATCH /backoffice/operators/:operatorId': 'Papel de operador alterado',
  'DELETE /backoffice/operators/:operatorId': 'Operador removido',
};

/**
 * Fields of the audited inputs as a person reads them, in the order a summary lists them (the log
 * keeps JSON, whose key order is not the form's); a field not named here shows its API path, last.
 */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  amountCents: 'valor',
  name: 'nome',
  email: 'e-mail',
  role: 'papel',
  label: 'apelido',
  reason: 'motivo',
  city: 'cidade',
  kycStatus: 'KYC',
  blocked: 'conta bloqueada',
  emailVerified: 'e-mail verificado',
  withdrawalMode: 'modo de saque',
  ipAllowlist: 'IPs permitidos',
  allowedPixKeyTypes: 'tipos de chave PIX',
  recipientLimit: 'limite de destinatários',
  url: 'URL',
  events: 'eventos',
  transactionId: 'cobrança',
  pixPerHour: 'cobranças por hora',
  withdrawPerSecond: 'saques por segundo',
  withdrawPerMinute: 'saques por minuto',
  withdrawPerHour: 'saques por hora',
  recipientsPerHour: 'destinatários por hora',
  chargeMinCents: 'cobrança mínima',
  chargeMaxCents: 'cobrança máxima',
  withdrawMinCents: 'saque mínimo',
  withdrawMaxCents: 'saque máximo',
  withdrawDailyCents: 'saques por dia',
  withdrawMonthlyCents: 'saques por mês',
};

/** The most lines of a summary; the full (masked) record is one click away. */
const SUMMARY_LINES = 6;
const VALUE_CHARACTERS = 60;
const REDACTED = '[redacted]';

type Leaf = { path: string; value: unknown };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value's leaves by dotted path (arrays whole). */
function leavesOf(value: unknown, prefix = ''): Leaf[] {
  if (!isRecord(value)) return prefix ? [{ path: prefix, value }] : [];
  return Object.entries(value).flatMap(([key, field]) => leavesOf(field, prefix ? `${prefix}.${key}` : key));
}

function valueAt(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) current = isRecord(current) ? current[key] : undefined;
  return current;
}

const FIELD_ORDER = Object.keys(FIELD_NAMES);
const fieldRank = (path: string): number => {
  const rank = FIELD_ORDER.indexOf(path.split('.').at(-1) ?? path);
  return rank === -1 ? FIELD_ORDER.length : rank;
};

/** Fields inside another object, by their path. */
const NESTED_FIELD_NAMES: Readonly<Record<string, string>> = {
  'responsible.name': 'responsável',
  'responsible.cpf': 'CPF do responsável',
  ...feeNames('pixIn', 'Tarifa PIX recebido'),
  ...feeNames('withdrawal', 'Tarifa de saque'),
};

/** A fee plan's parts as the account page's form names them (`fees.pixIn.bps` → "Tarifa PIX recebido (bps)"). */
function feeNames(plan: 'pixIn' | 'withdrawal', title: string): Record<string, string> {
  const parts = { fixedCents: 'fixa', bps: 'bps', minCents: 'mínima', maxCents: 'máxima' };
  return Object.fromEntries(Object.entries(parts).map(([part, name]) => [`fees.${plan}.${part}`, `${title} (${name})`]));
}

/** The API's words in a field's value, as a person reads them ("KYC: aprovado", not "approved"). */
const VALUE_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  kycStatus: { approved: 'aprovado', pending: 'pendente', rejected: 'recusado' },
  withdrawalMode: { automatic: 'automático', manual: 'manual' },
};

/** A top-level field (or a limit) by its name; a field inside another object by its path (named when known). */
function fieldName(path: string): string {
  const parts = path.split('.');
  const last = parts.at(-1) ?? path;
  const named = parts.length === 1 || (parts.length === 2 && parts[0] === 'limits') ? FIELD_NAMES[last] : NESTED_FIELD_NAMES[path];
  return named ?? path;
}

function shownValue(path: string, value: unknown): string {
  if (typeof value === 'number' && path.endsWith('Cents') && Number.isSafeInteger(value)) return formatBrl(value);
  if (typeof value === 'boolean') return value ? 'sim' : 'não';
  if (typeof value === 'string' && VALUE_NAMES[path]?.[value]) return VALUE_NAMES[path][value];
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length === 0 ? 'nenhum' : value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > VALUE_CHARACTERS ? `${text.slice(0, VALUE_CHARACTERS - 1)}…` : text;
}

/**
 * What an entry changed, in a few lines: the fields asked (`input`), each as `before → after` when
 * the entry kept the object before (unchanged fields left out), and the resulting status. Only
 * what the log holds, which was masked on the way in (documents masked, credentials redacted);
 * redacted fields are left out.
 */
function changeSummary(changes: AuditChanges): string[] {
  const lines: string[] = [];
  const asked = leavesOf(changes.input)
    .filter((leaf) => leaf.value !== REDACTED)
    .sort((a, b) => fieldRank(a.path) - fieldRank(b.path));
  for (const { path, value } of asked) {
    if (changes.before === undefined) {
      lines.push(`${fieldName(path)}: ${shownValue(path, value)}`);
      continue;
    }
    const was = valueAt(changes.before, path);
    const now = valueAt(changes.after, path) ?? value;
    if (JSON.stringify(was) !== JSON.stringify(now)) lines.push(`${fieldName(path)}: ${shownValue(path, was)} → ${shownValue(path, now)}`);
  }
  if (changes.before !== undefined && asked.length > 0 && lines.length === 0) lines.push('nenhum campo mudou');
  const status = valueAt(changes.after, 'status');
  if (typeof status === 'string' && !asked.some((leaf) => leaf.path === 'status')) lines.push(`situação: ${statusName(status)}`);
  return lines.length > SUMMARY_LINES ? [...lines.slice(0, SUMMARY_LINES - 1), `e mais ${lines.length - SUMMARY_LINES + 1} campos`] : lines;
}

/** Who acted, as the page names it: the operator's e-mail, or the automation token. */
function actorName(entry: { actor: string; operatorEmail: string | null }): string {
  if (entry.actor === ADMIN_TOKEN_ACTOR) return 'Token de operação';
  return entry.operatorEmail ?? entry.actor;
}

export type AuditEntryView = {
  at: Date;
  actor: string;
  action: string;
  accountId: string | null;
  accountName: string | null;
  operatorEmail: string | null;
  objectId: string | null;
  changes: AuditChanges;
};

/** An amount as shownValue writes it. */
const AMOUNT = /(-?R\$ \d[\d.]*,\d{2})/;

/** A summary line, its amounts kept whole (never broken between "R$" and the number). */
function SummaryLine(props: { line: string }) {
  return (
    <li>
      {props.line.split(AMOUNT).map((part, index) =>
        index % 2 === 1 ? (
          <span class="money" safe>
            {part}
          </span>
        ) : (
          <span safe>{part}</span>
        ),
      )}
    </li>
  );
}

function ActionCell(props: { action: string }) {
  const label = AUDIT_ACTION_LABELS[props.action];
  if (label)
    return (
      <span title={props.action} safe>
        {label}
      </span>
    );
  return (
    <>
      Outra ação: <code safe>{props.action}</code>
    </>
  );
}

export function AuditPage(props: {
  context: PageContext;
  entries: AuditEntryView[];
  filter: { accountId: string; actor: string };
  error?: string | undefined;
}) {
  const filtered = props.filter.accountId !== '' || props.filter.actor !== '';
  return (
    <Page context={props.context} title="Auditoria" error={props.error}>
      <p>Cada ação de operador, pela API ou por aqui: quem, o quê, em qual conta, quando e o que mudou. Os mais recentes primeiro.</p>
      <form class="filters" method="get" action="/backoffice/auditoria">
        <label>
          Conta (id)
          <input name="conta" value={props.filter.accountId} autocomplete="off" />
        </label>
        <label>
          Ator
          <input name="ator" value={props.filter.actor} placeholder="e-mail do operador, operator:… ou admin-token" autocomplete="off" />
        </label>
        <button type="submit">Filtrar</button>
      </form>
      {props.entries.length === 0 ? (
        <p class="muted empty">
          {filtered ? (
            <>
              Nenhuma ação registrada com esses filtros. <a href="/backoffice/auditoria">Ver todas as ações</a>.
            </>
          ) : (
            <>Nenhuma ação registrada ainda. Cada ação de operador — aqui ou pela API — aparecerá nesta lista, com quem a fez e o que mudou.</>
          )}
        </p>
      ) : (
        <DataTable label="Registro de auditoria" columns={['Quando', 'Quem', 'Ação', 'Conta', 'O que mudou']}>
          {props.entries.map((entry) => {
            const summary = changeSummary(entry.changes);
            return (
              <tr>
                <td safe>{formatDate(entry.at)}</td>
                <td class="wrap-anywhere" safe>
                  {actorName(entry)}
                </td>
                <td>
                  <ActionCell action={entry.action} />
                </td>
                <td>{entry.accountId ? <AccountLink accountId={entry.accountId} name={entry.accountName ?? undefined} /> : '—'}</td>
                <td>
                  {summary.length === 0 ? (
                    ''
                  ) : (
                    <ul class="changes">
                      {summary.map((line) => (
                        <SummaryLine line={line} />
                      ))}
                    </ul>
                  )}
                  <details>
                    <summary>Registro completo</summary>
                    <p class="wrap-anywhere" safe>
                      {`Ator: ${entry.actor} · rota: ${entry.action}${entry.objectId ? ` · objeto: ${entry.objectId}` : ''}`}
                    </p>
                    <pre safe>{JSON.stringify(entry.changes, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </Page>
  );
}
