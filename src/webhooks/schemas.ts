import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { messages } from '../messages.js';
import { listLimitQuery } from '../platform/schemas.js';
import {
  CANONICAL_EVENTS,
  EVENT_CATEGORIES,
  EXTENSION_CATEGORIES,
  FORMER_EVENT_NAMES,
  GATEWAY_EVENTS,
  RECURRENCE_EVENTS,
  TRANSACTION_EXTENSION_EVENTS,
  type GatewayEventName,
} from './events.js';

const filterDescription =
  `Canonical event names (${CANONICAL_EVENTS.join(', ')}), the transactions' beyond them (${TRANSACTION_EXTENSION_EVENTS.join(', ')}, in dispute), ` +
  `Pix Automático's (${RECURRENCE_EVENTS.join(', ')}) ` +
  `or categories (${[...Object.keys(EVENT_CATEGORIES), ...Object.keys(EXTENSION_CATEGORIES)].join(', ')}); ` +
  `former names (${Object.keys(FORMER_EVENT_NAMES).join(', ')}) are accepted and stored as their canonical name. Absent or empty: every event.`;

export const endpointBody = z.object(
  {
    url: z.string({ error: messages.webhookUrlInvalid }).meta({ description: 'HTTPS URL (public address).' }),
    events: z
      .array(z.string({ error: (issue) => messages.webhookEventsInvalid(String(issue.input)) }), { error: messages.webhookEventsNotList })
      .max(50, messages.webhookEventsNotList)
      .optional()
      .meta({ description: filterDescription }),
  },
  { error: messages.bodyNotObject },
);

export const endpointSchema = z
  .object({
    endpointId: z.string(),
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'The filter; empty = every event.' }),
    previousSecretExpiresAt: z.int().nullable().meta({ description: 'While a rotated-out secret still signs (Unix ms), else null.' }),
    createdAt: z.int(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdEndpointSchema = endpointSchema.extend({
  secret: z.string().meta({ description: '`whsec_` + base64 of 32 bytes. Shown once.' }),
});

export const endpointListResponse = z.object({ endpoints: z.array(endpointSchema), count: z.int() });

export const accountEndpointParams = z.object({ accountId: z.string(), endpointId: z.string() });
export const endpointParams = z.object({ endpointId: z.string() });
export const deliveryParams = z.object({ deliveryId: z.string() });

export const rotateSecretBody = z
  .object(
    {
      overlapSeconds: z
        .int({ error: messages.webhookOverlapInvalid })
        .min(0, messages.webhookOverlapInvalid)
        .max(604_800, messages.webhookOverlapInvalid)
        .optional()
        .meta({ description: 'How long the old secret keeps signing too (default 86400).' }),
    },
    { error: messages.bodyNotObject },
  )
  .nullish();

export const rotateSecretResponse = z.object({ endpointId: z.string(), secret: z.string(), previousSecretExpiresAt: z.int().nullable() });

export const deliveriesQuery = z.object({
  eventId: z.string().optional(),
  transactionId: z.string().optional(),
  limit: listLimitQuery,
});

const attemptSchema = z
  .object({
    attemptId: z.string(),
    deliveryId: z.string().meta({ description: 'What POST …/webhook-deliveries/{deliveryId}/resend takes.' }),
    endpointId: z.string(),
    eventId: z.string().meta({ description: 'X-Svc-Event-Id / webhook-id.' }),
    event: z.string(),
    transactionId: z.string().nullable(),
    resendOf: z.string().nullable().meta({ description: 'For a manual resend, the delivery it re-fired.' }),
    deliveryStatus: z.enum(['pending', 'succeeded', 'failed']),
    attemptNumber: z.int(),
    url: z.string(),
    attemptedAt: z.int().meta({ description: 'Unix milliseconds.' }),
    durationMs: z.int(),
    httpStatus: z.int().nullable().meta({ description: 'Null when no answer came (timeout, network error, blocked address).' }),
    error: z.string().nullable(),
    // A JSON text: its schema is the webhook payloads' union (the document's component, added with the webhooks below).
    payload: z
      .string()
      .meta({ description: 'The exact body sent.', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/WebhookEvent' } }),
  })
  .meta({ id: 'WebhookAttempt' });

export const attemptListResponse = z.object({ attempts: z.array(attemptSchema), count: z.int() });

export const resendResponse = z.object({
  deliveryId: z.string(),
  resendOf: z.string(),
  eventId: z.string(),
  status: z.literal('pending'),
});

const WEBHOOK_HEADERS = [
  ['X-Svc-Event', 'Canonical event name.'],
  ['X-Svc-Event-Id', 'Event id: the same across URLs, attempts and resends. Deduplicate on it.'],
  ['X-Svc-Signature', '`t=<timestamp>,v1=<base64>`: the same HMAC-SHA256 as webhook-signature (two v1= during a secret rotation).'],
  ['webhook-id', 'Standard Webhooks: the event id.'],
  ['webhook-timestamp', 'Standard Webhooks: Unix seconds of this attempt.'],
  ['webhook-signature', 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space-separated when two secrets sign.'],
] as const;

/** `transaction.partially_refunded` → `TransactionPartiallyRefunded`. */
const pascalCase = (name: string) =>
  name
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per canonical event (operationId `on` + the
 * event in PascalCase), its body a component schema of its own (`TransactionPaidEvent`, …), and
 * `WebhookEvent`, the union of every event (the 21, transaction.dispute_deadline and Pix Automático’s) discriminated by `event` (what a receiver gets). The body
 * schemas are assembled where events are (transactions/schemas.ts) and handed in.
 */
export function openApiWebhooks(eventBodySchema: (name: GatewayEventName) => z.ZodType): {
  webhooks: Record<string, OpenAPIV3_1.PathItemObject>;
  schemas: Record<string, OpenAPIV3_1.SchemaObject>;
} {
  const schemaName = (name: GatewayEventName) => `${pascalCase(name)}Event`;
  const reference = (name: GatewayEventName) => `#/components/schemas/${schemaName(name)}`;
  const schemas: Record<string, OpenAPIV3_1.SchemaObject> = {};
  const webhooks: Record<string, OpenAPIV3_1.PathItemObject> = {};
  for (const name of GATEWAY_EVENTS) {
    const { $schema: _schema, $defs: _defs, ...schema } = z.toJSONSchema(eventBodySchema(name), { io: 'output', unrepresentable: 'any' });
    // Shared schemas (Party) are the document's components, not local definitions.
    // The same JSON Schema (any JSON value to the type checker), its $defs references pointed at the document's components.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
    schemas[schemaName(name)] = JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'));
    webhooks[name] = {
      post: {
        operationId: `on${pascalCase(name)}`,
        tags: ['Webhooks'],
        summary: `Evento ${name}`,
        description: 'Verify the signature with any Standard Webhooks library and the endpoint secret; answer 2xx within 8 s.',
        // No credential: the receiver checks the signature headers below.
        security: [],
        parameters: WEBHOOK_HEADERS.map(([header, description]) => ({ name: header, in: 'header', required: true, description, schema: { type: 'string' } })),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: reference(name) } } } },
        responses: {
          '2XX': { description: 'Delivered.' },
          default: { description: 'Timeout, network error, 5xx, 408 and 429 are retried after 1 min, 5 min, 30 min, 2 h and 6 h; other answers are final.' },
        },
      },
    };
  }
  schemas.WebhookEvent = {
    description: 'The body of any webhook delivery: the event named by `event` (and by the X-Svc-Event header).',
    oneOf: GATEWAY_EVENTS.map((name) => ({ $ref: reference(name) })),
    discriminator: { propertyName: 'event', mapping: Object.fromEntries(GATEWAY_EVENTS.map((name) => [name, reference(name)])) },
  };
  return { webhooks, schemas };
}
