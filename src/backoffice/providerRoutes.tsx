import type { FastifyInstance, FastifyReply } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { assertOperatorMayDo, operatorMayDo } from '../operators/roles.js';
import type { OperatorSession } from '../operators/service.js';
import { checked, field } from '../pages/forms.js';
import { isId } from '../platform/ids.js';
import type { RoutingRules, RoutingTarget } from '../platform/schema.js';
import { routingRulesSchema } from '../routing/schemas.js';
import type { BackofficeKit, BackofficeServices } from './kit.js';
import { ProvidersPage, weightText, type AccountWeightsForm, type RoutingForm, type WeightsForm } from './providerViews.js';

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

/**
 * Provedores (DESIGN.md §14): the providers' health as this process sees it, the routing rules in
 * force, and (admin) the form that replaces them — PUT /admin/v1/routing, audited as it.
 */
export const providerPages =
  (kit: BackofficeKit, { routing, accounts }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, send, contextOf, attempt, checkCsrf, act } = kit;

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

    /** The page as it stands: the rules in force, and the form as typed when `typed` is given (a refusal). */
    const providersView = async (reply: FastifyReply, operator: OperatorSession, outcome: { error?: string; notice?: string; typed?: unknown } = {}) => {
      const providers = routing.health();
      const providerIds = providers.map((provider) => provider.id);
      const rules = await routing.rules();
      const form = outcome.typed === undefined ? formOf(rules, providerIds) : typedForm(outcome.typed, providerIds);
      const accountNames = await namesOf([...Object.keys(rules.accounts), ...form.accounts.map((account) => account.accountId)]);
      const data = { providers, rules, accountNames, mayEdit: operatorMayDo(operator.role, 'routing'), form };
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
  };
