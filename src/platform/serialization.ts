import fastJsonStringify from 'fast-json-stringify';
import { z } from 'zod';

/**
 * A response serializer compiled from the route's zod schema into fast-json-stringify, for the
 * hot read routes: the zod serializer re-validates every response object (measured: ~15% of a
 * 50-row list's CPU). Only for responses built by our own presenters, whose shapes the type
 * checker and the tests already hold to the schema.
 */
export function compiledSerializer({ schema }: { schema: unknown }): (data: unknown) => string {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Fastify hands the route's response schema over untyped; ours are zod schemas
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema as z.ZodType, { io: 'output', unrepresentable: 'any' });
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- zod's JSON Schema and fast-json-stringify's input describe the same draft with different types
  return fastJsonStringify(jsonSchema as Parameters<typeof fastJsonStringify>[0]);
}
