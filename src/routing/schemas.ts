import { z } from 'zod';
import { messages } from '../messages.js';

/** A routing list: providers with a positive weight, at least one (DESIGN.md §14). */
const routingList = (path: string) =>
  z
    .array(
      z.object({
        providerId: z.string().min(1).max(32),
        weight: z.number({ error: messages.routingWeightInvalid(`${path}[].weight`) }).positive(messages.routingWeightInvalid(`${path}[].weight`)),
      }),
      { error: messages.routingListEmpty(path) },
    )
    .min(1, messages.routingListEmpty(path));

export const routingRulesSchema = z
  .object({
    charges: routingList('charges'),
    withdrawals: routingList('withdrawals'),
    accounts: z
      .record(
        z.string(),
        z.object({ charges: routingList('accounts.<accountId>.charges').optional(), withdrawals: routingList('accounts.<accountId>.withdrawals').optional() }),
      )
      .default({}),
  })
  .meta({
    id: 'RoutingRules',
    description:
      'Which providers take new charges and new withdrawals: the default lists, and per account lists that replace them. Traffic is split by weight among the providers of the list whose breaker lets calls through.',
  });

export const providerHealthSchema = z.object({
  id: z.string(),
  kind: z.string().meta({ description: 'The kind of provider, as PROVIDERS_FILE names it.' }),
  state: z.enum(['up', 'degraded', 'down']),
  lastError: z.object({ message: z.string(), at: z.int().meta({ description: 'Unix milliseconds.' }) }).optional(),
  latencyMsP50: z.number().nullable(),
  latencyMsP99: z.number().nullable(),
  caps: z
    .object({
      maxChargeCents: z.int().nullable(),
      maxWithdrawalCents: z.int().nullable(),
      night: z
        .object({
          from: z.string().meta({ description: 'HH:MM, America/Sao_Paulo.' }),
          to: z.string().meta({ description: 'HH:MM, America/Sao_Paulo; before `from` when the window crosses midnight.' }),
          maxCents: z.int(),
        })
        .nullable(),
    })
    .meta({ description: 'The most one PIX may carry at this provider, as its PROVIDERS_FILE entry declares them; null: no such cap.' }),
  capNowCents: z.object({ charge: z.int().nullable(), withdrawal: z.int().nullable() }).meta({
    description:
      'The cap in force now (the lowest that applies at this São Paulo hour), by direction; null: none. Routing skips the provider for a larger amount.',
  }),
});
