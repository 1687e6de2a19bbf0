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
/** The document's path template a concrete path fills in (`/v1/transactions/{id}` for `/v1/transactions/tx_1`), the exact path first. */
export type TemplateOf<Path extends string> =
  WithoutQuery<Path> extends keyof paths
    ? WithoutQuery<Path>
    : { [Template in keyof paths]: SegmentsMatch<Segments<Template>, Segments<WithoutQuery<Path>>> extends true ? Template : never }[keyof paths];

type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessBodies<Responses> = { [Status in keyof Responses]: Status extends 200 | 201 | 202 ? JsonOf<Responses[Status]> : never }[keyof Responses];
type OperationOf<Template extends keyof paths, M extends Method> = paths[Template][Lowercase<M>];
/** The JSON body a successful answer carries for this method and path; `unknown` when the document has none. */
export type SuccessBody<M extends Method, Path extends string> = [TemplateOf<Path>] extends [never]
  ? unknown
  : OperationOf<TemplateOf<Path>, M> extends { responses: infer Responses }
    ? SuccessBodies<Responses>
    : unknown;

export type * from '../../packages/sdk/src/types.js';
