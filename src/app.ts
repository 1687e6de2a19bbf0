import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountAdminRoutes } from './accounts/adminRoutes.js';
import { merchantAuthentication } from './accounts/auth.js';
import { chargeRoutes } from './charges/routes.js';
import { ledgerAdminRoutes } from './ledger/adminRoutes.js';
import { balanceRoutes } from './ledger/routes.js';
import { adminAuthentication } from './platform/adminAuth.js';
import { registerErrorHandling } from './platform/http.js';
import './platform/validation.js';
import { sandboxRoutes } from './sandbox/routes.js';
import type { Services } from './services.js';
import { transactionRoutes } from './transactions/routes.js';

export type AppOptions = {
  adminToken: string;
  /** false = no logs; a stream = logs there (tests read them); default = stdout. */
  logger?: false | NodeJS.WritableStream;
};

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: ['req.headers.authorization', 'req.headers["x-forwarded-for"]'], censor: '[redacted]' },
            ...(options.logger ? { stream: options.logger } : {}),
          },
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: 64 * 1024,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);

  // An empty JSON body is "no body" (a POST without data), not a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PIX gateway API',
        version: '1.0.0',
        description: 'Merchant API (/v1), operator API (/admin/v1) and sandbox (/sandbox/v1). Errors are `{ "error": "<mensagem>" }`.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Merchant API key: `Authorization: Bearer svck_…`' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/health', { schema: { tags: ['Health'], response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({ status: 'ok' as const }));

  const authenticateMerchant = merchantAuthentication(services.accounts);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateMerchant);
      await v1.register(chargeRoutes(services));
      await v1.register(transactionRoutes(services));
      await v1.register(balanceRoutes(services));
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (sandbox) => {
      sandbox.addHook('onRequest', authenticateMerchant);
      await sandbox.register(sandboxRoutes(services));
    },
    { prefix: '/sandbox/v1' },
  );
  await app.register(
    async (admin) => {
      admin.addHook('onRequest', adminAuthentication(options.adminToken));
      await admin.register(accountAdminRoutes(services));
      await admin.register(ledgerAdminRoutes(services));
    },
    { prefix: '/admin/v1' },
  );
  return app;
}
