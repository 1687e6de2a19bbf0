import type { components, paths } from '../../packages/sdk/src/generated/openapi.js';

/**
 * Response bodies of the merchant and sandbox API as the OpenAPI document declares them (the SDK's
 * generated types): `gateway.call('GET', `/v1/transactions/${id}`)` answers a `Transaction` body.
 */

export type Schemas = components['schemas'];
/** The body of every error answer: `{ error }` with the catalog's message. */
export type ErrorBody = Schemas['Error'];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type Segments<Path extends string> = Path extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [Path];
type SegmentsMatch<Pattern extends string[], Actual extends string[]> = Pattern extends [infer P extends string, ...infer PRest extends string[]]
  ? Actual extends [infer A extends string, ...infer ARest extends string[]]
    ? P extends `{${string}}`
      ? SegmentsMatch<PRest, ARest>
      : A extends P
        ? SegmentsMatch<PRest, ARest>
        : false
    : false
  : Actual extends []
    ? true
    : false;
type WithoutQuery<Path extends string> = Path extends `${infer Before}?${string}` ? Before : Path;
/** Among the path templates given, the one a concrete path fills in (`/v1/transactions/{id}` for `/v1/transactions/tx_1`), an exact match first. */
export type TemplateIn<Templates extends string, Path extends string> = Path extends string ? TemplateOfOne<Templates, Path> : never;
type TemplateOfOne<Templates extends string, Path extends string> =
  WithoutQuery<Path> extends Templates
    ? WithoutQuery<Path>
    : { [Template in Templates]: SegmentsMatch<Segments<Template>, Segments<WithoutQuery<Path>>> extends true ? Template : never }[Templates];
/** The document's path template for a concrete path. */
export type TemplateOf<Path extends string> = TemplateIn<keyof paths, Path>;

type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessBodies<Responses> = { [Status in keyof Responses]: Status extends 200 | 201 | 202 ? JsonOf<Responses[Status]> : never }[keyof Responses];
type OperationOf<Template extends keyof paths, M extends Method> = paths[Template][Lowercase<M>];
/** The JSON body a successful answer carries for this method and path; `unknown` when the document has none. */
export type SuccessBody<M extends Method, Path extends string> = [TemplateOf<Path>] extends [never]
  ? unknown
  : OperationOf<TemplateOf<Path>, M> extends { responses: infer Responses }
    ? SuccessBodies<Responses>
    : unknown;

/** A JSON Schema of the served OpenAPI document (GET /openapi.json), with the keywords tests read. */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
  contentSchema?: JsonSchema;
  [keyword: string]: unknown;
};
type Content = Record<string, { schema?: JsonSchema; example?: unknown }>;
/** A security requirement: scheme name → scopes. */
type SecurityRequirement = Record<string, string[]>;
export type OpenApiOperation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  security?: SecurityRequirement[];
  requestBody?: { content: Content };
  responses: Record<string, { description: string; content?: Content }>;
};
/** GET /openapi.json: the document the gateway serves (merchant, sandbox and operator routes, and the webhooks). */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string };
  security?: SecurityRequirement[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  webhooks: Record<string, { post: OpenApiOperation }>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

/** The message of an error answer (`{ error }`), undefined for any other body. */
export const errorOf = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string' ? body.error : undefined;

/** A body of several documented shapes (201 or 202…) as the one that has `field`; throws when it has not. */
export function withField<T extends object, K extends string>(body: T, field: K): Extract<T, Record<K, unknown>> {
  if (!(field in body)) throw new Error(`no ${field} in ${JSON.stringify(body)}`);
  // Checked just above: the body is the members of T that have the field.
  return body as Extract<T, Record<K, unknown>>;
}

export type * from '../../packages/sdk/src/types.js';
