// The API reference pages (docs/openapi.md, DESIGN.md §24): /docs for merchants, /docs/sandbox and
// /docs/operador beside it. Each page is Swagger UI (@fastify/swagger-ui: its files come from
// node_modules, nothing from a CDN) showing one part of the OpenAPI document; /openapi.json
// stays the whole document.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { FAVICON_SVG } from '../platform/favicon.js';
import { PROBE_PATHS } from '../platform/openapi.js';

type ReferencePage = {
  /** Where the page is served; its document is at `${prefix}/json`. */
  prefix: string;
  title: string;
  /** The document's paths this page lists. */
  lists: (path: string) => boolean;
  /** Whether the page shows the `webhooks` section (the events a merchant receives). */
  webhooks: boolean;
  intro: string;
};

const REFERENCE_PAGES: readonly ReferencePage[] = [
  {
    prefix: '/docs',
    title: 'API do lojista',
    lists: (path) => path.startsWith('/v1/'),
    webhooks: true,
    intro:
      'Cobranças, saques, destinatários, saldo, transações e os webhooks que sua conta recebe. Autentique cada chamada com `Authorization: Bearer <sua chave de API>`; os erros são `{ "error": "<mensagem>" }`.',
  },
  {
    prefix: '/docs/sandbox',
    title: 'Sandbox',
    lists: (path) => path.startsWith('/sandbox/v1/'),
    webhooks: false,
    intro:
      'Simula o que o pagador, o banco do pagador e o PSP fazem, para testar a integração sem dinheiro de verdade. Só existe quando o gateway roda com o provedor simulado; as chamadas usam a chave de API do lojista (a queda de provedor, o token do operador).',
  },
  {
    prefix: '/docs/operador',
    title: 'API do operador',
    lists: (path) => path.startsWith('/admin/v1/') || PROBE_PATHS.includes(path),
    webhooks: false,
    intro:
      'Administração do gateway: contas, chaves, bloqueios, destinatários, saques manuais, MED, webhooks, provedores e conciliação, com o token do operador (`ADMIN_TOKEN`); por último as sondas de saúde e as métricas, sem autenticação.',
  },
];

/** The links between the pages, in each page's description (Swagger UI renders its Markdown). */
const pageLinks = (current: ReferencePage): string =>
  [
    ...REFERENCE_PAGES.map((page) => (page === current ? `**${page.title}**` : `[${page.title}](${page.prefix})`)),
    '[Documento OpenAPI completo (JSON)](/openapi.json)',
  ].join(' · ');

/**
 * One page's document: the paths it lists, the tags they use (in the document's order) and,
 * on the merchant's page, the webhooks. Components stay whole: the page hides the schema list.
 */
function pageDocument(document: OpenAPIV3_1.Document, page: ReferencePage): OpenAPIV3_1.Document {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => page.lists(path)));
  const used = new Set(
    [...Object.values(paths), ...(page.webhooks ? Object.values(document.webhooks ?? {}) : [])].flatMap((item) =>
      Object.values(item ?? {}).flatMap((operation: unknown) =>
        typeof operation === 'object' && operation !== null && 'tags' in operation && Array.isArray(operation.tags)
          ? operation.tags.filter((tag): tag is string => typeof tag === 'string')
          : [],
      ),
    ),
  );
  const { webhooks, ...rest } = document;
  return {
    ...rest,
    info: { ...document.info, title: `${page.title} · PIX gateway`, description: `${pageLinks(page)}\n\n${page.intro}` },
    tags: (document.tags ?? []).filter((tag) => used.has(tag.name)),
    paths,
    ...(page.webhooks && webhooks ? { webhooks } : {}),
  };
}

const isDocument = (value: Readonly<Record<string, unknown>>): value is OpenAPIV3_1.Document =>
  typeof value.openapi === 'string' && typeof value.info === 'object' && value.info !== null;

/**
 * Swagger UI's own pages set no policy; these allow only this server (the viewer fetches its
 * document and files from here, and nothing else: the validator badge is off).
 */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Our look over Swagger UI's: no vendor bar, no server picker or authorize button (nothing is
 * sent from the page), colours with AA contrast, examples at full height (no scroll box to reach
 * with the keyboard) and nothing wider than a phone.
 */
const DOCS_CSS = `
body { background: #fff; color: #1b1f24; }
.swagger-ui .topbar, .swagger-ui .scheme-container, .swagger-ui .authorization__btn, .swagger-ui .info hgroup.main > a { display: none; }
.swagger-ui .info .title small { background: #57606a; }
.swagger-ui .info .title small.version-stamp { background: #116329; }
.swagger-ui .opblock .opblock-summary-method { color: #fff; text-shadow: none; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b5cad; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #116329; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #7d4e00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #6639ba; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a40e26; }
.swagger-ui .highlight-code > .microlight, .swagger-ui .body-param__example, .swagger-ui .example.microlight { max-height: none; overflow: visible; background: #f6f8fa; color: #1b1f24; }
.swagger-ui .parameter__in, .swagger-ui .parameter__type, .swagger-ui .prop-format, .swagger-ui .response-col_links, .swagger-ui .opblock-summary-operation-id { color: #57606a; }
.swagger-ui .wrapper { padding: 0 12px; }
.swagger-ui .info { margin: 24px 0; }
.swagger-ui .info .title { font-size: 1.75rem; }
.swagger-ui .info a, .swagger-ui .info p, .swagger-ui .info li { font-size: 1rem; }
.swagger-ui .info a { color: #0b5cad; }
.swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
.swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock .opblock-summary-path__deprecated { word-break: break-all; max-width: 100%; flex-shrink: 1; }
.swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; word-break: break-word; }
.swagger-ui .opblock-body, .swagger-ui .responses-inner, .swagger-ui .table-container { overflow-x: auto; }
.swagger-ui .microlight, .swagger-ui pre { white-space: pre-wrap; word-break: break-word; }
.swagger-ui .opblock-tag { flex-wrap: wrap; word-break: break-word; }
.swagger-ui .opblock-tag small { flex-basis: 100%; padding: 4px 0 0; }
.swagger-ui .markdown code, .swagger-ui .renderedMarkdown code { word-break: break-word; }
@media (max-width: 47.99rem) {
  .swagger-ui table.responses-table thead, .swagger-ui table.parameters thead, .swagger-ui .response-col_links { display: none; }
  .swagger-ui table.responses-table tr, .swagger-ui table.responses-table td, .swagger-ui table.parameters tr, .swagger-ui table.parameters td { display: block; width: auto; padding-left: 0; }
}
@media (min-width: 48rem) {
  .swagger-ui .opblock .opblock-summary { flex-wrap: nowrap; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: auto; }
  .swagger-ui .opblock-tag small { flex-basis: auto; padding: 0 10px; }
}
`;

/** The page is in Portuguese (Swagger UI's own page says English). */
const DOCS_JS = "document.documentElement.lang = 'pt-BR';\n";

/** Registers the three pages: each a Swagger UI of its part of the document. */
export async function apiReferenceRoutes(app: FastifyInstance): Promise<void> {
  for (const page of REFERENCE_PAGES) {
    // Each in a scope of its own: the plugin decorates and hooks the scope it is registered in.
    await app.register(async (scope) => {
      await scope.register(swaggerUi, {
        routePrefix: page.prefix,
        staticCSP: DOCS_CSP,
        transformSpecification: (document) => (isDocument(document) ? pageDocument(document, page) : document),
        uiConfig: {
          // No vendor bar (BaseLayout); models stay inside their operations; the links keep their place.
          layout: 'BaseLayout',
          // Deep links would put a link inside each operation's button (nested controls, axe).
          deepLinking: false,
          docExpansion: 'list',
          // Plain examples: the highlighter's colours are below AA contrast on its dark background.
          syntaxHighlight: false,
          defaultModelsExpandDepth: -1,
          displayOperationId: true,
          // A reference, not a console: no Try it out (the page sends no API call).
          supportedSubmitMethods: [],
        },
        theme: {
          title: `${page.title} · PIX gateway`,
          css: [{ filename: 'docs.css', content: DOCS_CSS }],
          js: [{ filename: 'docs.js', content: DOCS_JS }],
          favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON_SVG }],
        },
      });
    });
  }
}
