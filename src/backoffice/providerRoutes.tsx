import type { FastifyInstance, FastifyReply } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { assertOperatorMayDo, operatorMayDo } from '../operators/roles.js';
import { operatorActor, type OperatorSession } from '../operators/service.js';
import { checked, field, idParam } from '../pages/forms.js';
import { isId } from '../platform/ids.js';
import type { RoutingRules, RoutingTarget } from '../platform/schema.js';
import { reconciliationCsv } from '../reconciliation/report.js';
import { presentDifference, presentRun, runReconciliationBody } from '../reconciliation/schemas.js';
import { routingRulesSchema } from '../routing/schemas.js';
import type { BackofficeKit, BackofficeServices } from './kit.js';
import {
  ProvidersPage,
  ReconciliationRunPage,
  weightText,
  type AccountWeightsForm,
  type ReconciliationForm,
  type RoutingForm,
  type WeightsForm,
} from './providerViews.js';

/** The latest reconciliation runs the page lists. */
const RUN_ROWS = 30;
const DAY_MS = 86_400_000;

/** A form's values of a name given once or many times (the accounts' hidden fields). */
function values(body: unknown, name: string): string[] {
  const value: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A list as the form shows it: each configured provider's weight, '' when it is not in the list. */
const weightsOf = (list: RoutingTarget[] | undefined, providerIds: string[]): WeightsForm =>
  Object.fromEntries(
    providerIds.map((providerId) => {
      const target = list?.find((item) => item.providerId === providerId);
      return [providerId, target ? weightText(target.weight) : ''];
    }),
  );

/** The rules in force as the form shows them. */
function formOf(rules: RoutingRules, providerIds: string[]): RoutingForm {
  return {
    charges: weightsOf(rules.charges, providerIds),
    withdrawals: weightsOf(rules.withdrawals, providerIds),
    accounts: Object.entries(rules.accounts).map(([accountId, own]) => ({
      accountId,
      charges: weightsOf(own.charges, providerIds),
      withdrawals: weightsOf(own.withdrawals, providerIds),
    })),
    newAccount: { accountId: '', charges: weightsOf(undefined, providerIds), withdrawals: weightsOf(undefined, providerIds) },
  };
}

/** What the operator typed, field by field (shown again when the rules are refused). */
function typedForm(body: unknown, providerIds: string[]): RoutingForm {
  const weights = (prefix: string): WeightsForm => Object.fromEntries(providerIds.map((providerId) => [providerId, field(body, `${prefix}.${providerId}`)]));
  return {
    charges: weights('charges'),
    withdrawals: weights('withdrawals'),
    accounts: [...new Set(values(body, 'account'))].map((accountId) => ({
      accountId,
      charges: weights(`accounts.${accountId}.charges`),
      withdrawals: weights(`accounts.${accountId}.withdrawals`),
    })),
    newAccount: { accountId: field(body, 'newAccount').trim(), charges: weights('newAccount.charges'), withdrawals: weights('newAccount.withdrawals') },
  };
}

/**
 * A typed weight as the API's body would carry it: absent when empty or 0 (the provider is out of
 * the list), a number when it reads as one (decimal comma or point), else the text itself, which
 * the API's schema refuses with its own message.
 */
function weightOf(text: string): number | string | undefined {
  const typed = text.trim();
  if (typed === '') return undefined;
  if (!/^\d+(?:[.,]\d+)?$/.test(typed)) return typed;
  const weight = Number(typed.replace(',', '.'));
  return weight === 0 ? undefined : weight;
}

/** A list from its weights, in the order the list had (new providers after, in configured order); [] when every weight is empty. */
function listOf(weights: WeightsForm, before: RoutingTarget[] | undefined): { providerId: string; weight: number | string }[] {
  const position = (providerId: string) => {
    const index = before?.findIndex((target) => target.providerId === providerId) ?? -1;
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  return Object.entries(weights)
    .flatMap(([providerId, text]) => {
      const weight = weightOf(text);
      return weight === undefined ? [] : [{ providerId, weight }];
    })
    .sort((a, b) => position(a.providerId) - position(b.providerId));
}

/** An account's lists as the API's body: a list left empty is the default one; undefined when both are. */
function accountLists(account: AccountWeightsForm, before: RoutingRules['accounts'][string] | undefined) {
  const charges = listOf(account.charges, before?.charges);
  const withdrawals = listOf(account.withdrawals, before?.withdrawals);
  if (charges.length === 0 && withdrawals.length === 0) return undefined;
  return { ...(charges.length > 0 ? { charges } : {}), ...(withdrawals.length > 0 ? { withdrawals } : {}) };
}

/** The form as the body of PUT /admin/v1/routing, checked by the API's own schema (the same first message). */
function rulesOf(form: RoutingForm, before: RoutingRules): RoutingRules {
  const accounts: Record<string, unknown> = {};
  for (const account of form.accounts) {
    const lists = accountLists(account, before.accounts[account.accountId]);
    if (lists) accounts[account.accountId] = lists;
  }
  const added = accountLists(form.newAccount, undefined);
  if (form.newAccount.accountId === '') {
    if (added) throw new InvalidRequestError(messages.routingAccountIdMissing);
  } else {
    if (!added) throw new InvalidRequestError(messages.routingAccountWithoutWeights(form.newAccount.accountId));
    accounts[form.newAccount.accountId] = added;
  }
  return checked(routingRulesSchema, {
    charges: listOf(form.charges, before.charges),
    withdrawals: listOf(form.withdrawals, before.withdrawals),
    accounts,
  });
}

/** A UTC day (AAAA-MM-DD) as the instant it starts; NaN when it is not a day (the API's schema then refuses it with its message). */
function utcDayStart(text: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.NaN;
  const at = Date.parse(`${text}T00:00:00Z`);
  // A date that does not exist (2026-02-30) rolls over in Date; the round trip refuses it.
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text ? Number.NaN : at;
}

/** The form's default: yesterday (UTC), the daily job's own period. */
function yesterdayForm(now: Date): ReconciliationForm {
  const yesterday = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
  return { providerId: '', from: yesterday, to: yesterday };
}

/** What the operator typed in the reconciliation form (shown again when refused). */
const typedReconciliation = (body: unknown): ReconciliationForm => ({
  providerId: field(body, 'providerId').trim(),
  from: field(body, 'de').trim(),
  to: field(body, 'ate').trim(),
});

/**
 * The form as the body of POST /admin/v1/reconciliation, checked by the API's own schema: from the
 * first day's 00:00 UTC to the day after the last one, in Unix ms.
 */
function reconciliationBodyOf(form: ReconciliationForm) {
  return checked(runReconciliationBody, {
    ...(form.providerId === '' ? {} : { providerId: form.providerId }),
    from: utcDayStart(form.from),
    to: utcDayStart(form.to) + DAY_MS,
  });
}

/**
 * Provedores (DESIGN.md §14): the providers' health as this process sees it, their treasury (a
 * reading now: POST /admin/v1/treasury/refresh), the reconciliation runs (a run now: POST
 * /admin/v1/reconciliation; each run's differences and its CSV report), the routing rules in force,
 * and (admin) the form that replaces them — PUT /admin/v1/routing. Every change is audited as the
 * API route it equals.
 */
export const providerPages =
  (kit: BackofficeKit, { routing, accounts, reconciliation, treasury, operators, clock }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, asUser, send, contextOf, attempt, checkCsrf, act } = kit;

    /** The names of the accounts, for their links; an id that names no account keeps its id. */
    const namesOf = async (accountIds: string[]): Promise<Record<string, string>> => {
      const named = await Promise.all(
        [...new Set(accountIds)].filter(isId).map(async (accountId) => {
          try {
            return [[accountId, (await accounts.getAccount(accountId)).name] as const];
          } catch (error) {
            if (error instanceof NotFoundError) return [];
            throw error;
          }
        }),
      );
      return Object.fromEntries(named.flat());
    };

    /** The operators who asked for runs, by their audit name (`operator:<id>`) → e-mail; a removed one keeps its name. */
    const requestersOf = async (requestedBy: string[]): Promise<Record<string, string>> => {
      if (!requestedBy.some((actor) => actor.startsWith('operator:'))) return {};
      return Object.fromEntries((await operators.list()).map((row) => [operatorActor(row.operatorId), row.email]));
    };

    /** The page as it stands: the rules in force, and the forms as typed when given (a refusal). */
    const providersView = async (
      reply: FastifyReply,
      operator: OperatorSession,
      outcome: { error?: string; notice?: string; typed?: unknown; reconciliation?: ReconciliationForm } = {},
    ) => {
      const providers = routing.health();
      const providerIds = providers.map((provider) => provider.id);
      const [rules, readings, runs] = await Promise.all([routing.rules(), treasury.list(), reconciliation.list(undefined, RUN_ROWS)]);
      const form = outcome.typed === undefined ? formOf(rules, providerIds) : typedForm(outcome.typed, providerIds);
      const accountNames = await namesOf([...Object.keys(rules.accounts), ...form.accounts.map((account) => account.accountId)]);
      const data = {
        providers,
        rules,
        accountNames,
        mayEdit: operatorMayDo(operator.role, 'routing'),
        form,
        treasury: readings,
        mayRefreshTreasury: operatorMayDo(operator.role, 'treasury'),
        runs: runs.map(presentRun),
        requesters: await requestersOf(runs.map((run) => run.requestedBy)),
        mayReconcile: operatorMayDo(operator.role, 'reconciliation'),
        reconciliationForm: outcome.reconciliation ?? yesterdayForm(clock.now()),
      };
      return <ProvidersPage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };

    app.get(
      '/provedores',
      asOperator(async (_request, reply, operator) => send(reply, providersView(reply, operator))),
    );

    app.post(
      '/provedores',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => {
        // The role first: a refused role learns nothing of what it sent.
        assertOperatorMayDo(operator, 'routing');
        const ok = await attempt(
          reply,
          async () => {
            const before = await routing.rules();
            const rules = rulesOf(
              typedForm(
                request.body,
                routing.health().map((provider) => provider.id),
              ),
              before,
            );
            await act(operator, 'routing', { action: 'PUT /admin/v1/routing', input: rules, before }, () => routing.replace(rules));
          },
          (error) => providersView(reply, operator, { error, typed: request.body }),
        );
        return ok ? send(reply, providersView(reply, operator, { notice: messages.routingSaved })) : reply;
      }),
    );

    // Tesouraria: every PSP read now, as POST /admin/v1/treasury/refresh (admin).
    app.post(
      '/provedores/tesouraria',
      { preHandler: checkCsrf },
      asOperator(async (_request, reply, operator) => {
        await act(operator, 'treasury', { action: 'POST /admin/v1/treasury/refresh' }, async () => ({
          providers: (await treasury.refresh()).map((reading) => ({ ...reading, readAt: reading.readAt.getTime() })),
        }));
        return send(reply, providersView(reply, operator, { notice: messages.treasuryRead }));
      }),
    );

    // Conciliação: a run now over the days chosen, as POST /admin/v1/reconciliation (admin); the API's messages when refused.
    app.post(
      '/provedores/conciliacao',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => {
        assertOperatorMayDo(operator, 'reconciliation');
        const typed = typedReconciliation(request.body);
        const ok = await attempt(
          reply,
          async () => {
            const input = reconciliationBodyOf(typed);
            await act(operator, 'reconciliation', { action: 'POST /admin/v1/reconciliation', input }, async () => {
              const runs = await reconciliation.runNow(
                { providerId: input.providerId, from: new Date(input.from), to: new Date(input.to) },
                operatorActor(operator.operatorId),
              );
              return { runs: runs.map(presentRun) };
            });
          },
          (error) => providersView(reply, operator, { error, reconciliation: typed }),
        );
        return ok ? send(reply, providersView(reply, operator, { notice: messages.reconciliationRan, reconciliation: typed })) : reply;
      }),
    );

    // A run's report for the accountant, as GET /admin/v1/reconciliation/{runId}/report.csv (every role reads).
    app.get(
      '/provedores/conciliacao/:runId.csv',
      asUser(async (request, reply) => {
        const { run, differences } = await reconciliation.get(idParam(request.params, 'runId', messages.reconciliationNotFound));
        const day = run.periodFrom.toISOString().slice(0, 10);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="conciliacao-${run.providerId}-${day}.csv"`)
          .send(reconciliationCsv(run, differences));
      }),
    );

    // One run: its totals and every difference (every role reads).
    app.get(
      '/provedores/conciliacao/:runId',
      asOperator(async (request, reply, operator) => {
        const { run, differences } = await reconciliation.get(idParam(request.params, 'runId', messages.reconciliationNotFound));
        const [accountNames, requesters] = await Promise.all([
          namesOf(differences.flatMap((difference) => (difference.accountId ? [difference.accountId] : []))),
          requestersOf([run.requestedBy]),
        ]);
        const data = { run: presentRun(run), differences: differences.map(presentDifference), requesters, accountNames };
        return send(reply, <ReconciliationRunPage context={contextOf(reply, operator)} data={data} />);
      }),
    );
  };
