import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Banco Central's API Pix 2.9.0 OpenAPI as the judge of every request the PSP double receives and
 * every answer it sends. The file's known defects (../shared/bcb/README.md) are patched here, in
 * this one reviewed list, and nowhere else.
 */
const SPEC_PATH = fileURLToPath(new URL('../../../shared/bcb/pix-api-2.9.0.yaml', import.meta.url));

type Json = Record<string, unknown>;

/** The reviewed patches: each names the defect it corrects. */
const SPEC_PATCHES: { defect: string; apply(document: Json): void }[] = [
  {
    defect: 'CPF patterns are written "/^\\d{11}$/" (with slashes): no string matches, so every devedor.cpf would be refused',
    apply: (document) =>
      visit(document, (node) => {
        if (node.pattern === '/^\\d{11}$/') node.pattern = '^\\d{11}$';
      }),
  },
  {
    defect: 'many patterns are not anchored ([a-zA-Z0-9]{26,35} also matches a 40-character txid): every pattern is anchored',
    apply: (document) =>
      visit(document, (node) => {
        if (typeof node.pattern === 'string' && !node.pattern.startsWith('^')) node.pattern = `^(?:${node.pattern})$`;
      }),
  },
  {
    defect: 'a BR Code location has no scheme (Manual de Padrões: "pix.example.com/qr/v2/…") yet `location` says format: uri, which requires one',
    apply: (document) =>
      visit(document, (node) => {
        const location = (node.properties as Json | undefined)?.location as Json | undefined;
        if (location?.format === 'uri' && location.maxLength === 77) delete location.format;
      }),
  },
  {
    defect:
      "DadosRecebedor requires logradouro, cidade, uf and cep of the charge itself, beside `recebedor`, where its own allOf already requires them inside `recebedor` (as BCB's example cobResponse4 has them): no cobv answer (CobVGerada) could be valid; the outer `required` is dropped",
    apply: (document) => {
      delete schemaNamed(document, 'DadosRecebedor').required;
    },
  },
  {
    defect:
      'CobVValor.desconto is oneOf [descontoDataFixa, valorPerc] with descontoDataFixa not required: a per-day discount (modalidades 3–6, valorPerc only) matches both and fails oneOf; descontoDataFixa is required in its alternative',
    apply: (document) => {
      const desconto = (schemaNamed(document, 'CobVValor').properties as Json).desconto as Json;
      const [fixedDates] = desconto.oneOf as Json[];
      if (!fixedDates) throw new Error('CobVValor.desconto has no oneOf');
      fixedDates.required = ['descontoDataFixa'];
    },
  },
  {
    defect:
      "Pix.txid is allOf [TxId (26–35 characters), pattern {1,35}]: the intersection refuses the txid of a static QR code's PIX (up to 25 characters in a static BR Code; TxId's own description says every PIX with a txid carries it to the receiving PSP), which the second pattern plainly admits; the received PIX's txid is that pattern alone",
    apply: (document) => {
      const properties = schemaNamed(document, 'Pix').properties as Json;
      properties.txid = { type: 'string', pattern: '^(?:[a-zA-Z0-9]{1,35})$' };
    },
  },
  {
    defect: 'PixConsultados (GET /pix) requires `cobs` where its list is `pix` (a copy of CobsConsultadas): `pix` is required instead',
    apply: (document) => {
      const schema = schemaNamed(document, 'PixConsultados');
      schema.required = ['parametros', 'pix'];
    },
  },
  {
    defect:
      "RecBase requires `idRec` and `retentativa`: `idRec` is assigned by the PSP (BCB's own POST /rec examples recBody1/recBody2 have none; the answers that carry it require it where they list it) and `retentativa` is no property (the policy is `politicaRetentativa`, required by RecConfiguracao): no POST /rec body could be valid; RecBase requires `calendario` and `vinculo`",
    apply: (document) => {
      schemaNamed(document, 'RecBase').required = ['calendario', 'vinculo'];
    },
  },
  {
    defect:
      "SolicRecBase requires `pagador`, which is no property of it (the payer's account is `destinatario`, as BCB's example solicRecBody1 has it): no POST /solicrec body could be valid; `pagador` is dropped from its required",
    apply: (document) => {
      const schema = schemaNamed(document, 'SolicRecBase');
      schema.required = (schema.required as string[]).filter((name) => name !== 'pagador');
    },
  },
  {
    defect:
      "SolicRecCompleta requires `rec`, which none of its parts defines (the recurrence is `recPayload`, as in BCB's example solicRecResponse1): the requirement is dropped",
    apply: (document) => {
      delete schemaNamed(document, 'SolicRecCompleta').required;
    },
  },
  {
    defect:
      "DadosPagadorRec requires `ispbParticipante` and one of CPF/CNPJ at the recurrence's top level, where its only property is `pagador` (whose allOf defines ispbParticipante): no RecCompleta could be valid; both apply to `pagador`",
    apply: (document) => {
      const schema = schemaNamed(document, 'DadosPagadorRec');
      const pagador = (schema.properties as Json).pagador as Json;
      pagador.required = schema.required;
      pagador.oneOf = schema.oneOf;
      delete schema.required;
      delete schema.oneOf;
    },
  },
  {
    defect:
      'the `encerramento` of a rec (RecEncerramento) and of a cobr (CobRAtualizacao) is oneOf [rejeicao, cancelamento] with neither required in its alternative: every closing matches both and fails oneOf; each alternative requires its own property',
    apply: (document) => {
      for (const name of ['RecEncerramento', 'CobRAtualizacao']) {
        const encerramento = (schemaNamed(document, name).properties as Json).encerramento as Json;
        for (const alternative of encerramento.oneOf as Json[]) alternative.required = Object.keys(alternative.properties as Json);
      }
    },
  },
  {
    defect:
      'RecNotification\'s required list is written ["idRec","status",atualizacao"] (a stray quote): it requires a property named `atualizacao"`; read as `atualizacao`',
    apply: (document) => {
      const schema = schemaNamed(document, 'RecNotification');
      schema.required = (schema.required as string[]).map((name) => name.replace(/"$/, ''));
    },
  },
];

function visit(node: unknown, change: (node: Json) => void): void {
  if (Array.isArray(node)) return node.forEach((item) => visit(item, change));
  if (typeof node !== 'object' || node === null) return;
  const record = node as Json;
  change(record);
  for (const value of Object.values(record)) visit(value, change);
}

function schemaNamed(document: Json, name: string): Json {
  return ((document.components as Json).schemas as Json)[name] as Json;
}

export type Operation = { path: string; method: 'get' | 'put' | 'patch' | 'post' };

export class ApiPixContract {
  readonly document: Json;
  private readonly ajv: Ajv;
  private readonly coercing: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    this.document = parse(readFileSync(SPEC_PATH, 'utf8')) as Json;
    for (const patch of SPEC_PATCHES) patch.apply(this.document);
    const options = { strict: false, allErrors: true, validateFormats: true };
    this.ajv = new Ajv(options);
    // Query and path parameters arrive as text: integers and booleans are read as such.
    this.coercing = new Ajv({ ...options, coerceTypes: true });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
    for (const ajv of [this.ajv, this.coercing]) {
      addFormats(ajv);
      ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && Math.abs(value) <= 2 ** 31 });
      ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) });
      ajv.addSchema({ ...this.document, $id: 'https://double.test/pix-api' });
    }
  }

  /** Problems of a request body, its path and query parameters against the operation; empty when valid. */
  checkRequest(operation: Operation, request: { params: Record<string, string>; query: Record<string, string>; body: unknown }): string[] {
    const problems: string[] = [];
    const pathItem = this.pathItem(operation);
    const definition = pathItem[operation.method] as Json;
    const parameters = [...((pathItem.parameters as Json[] | undefined) ?? []), ...((definition.parameters as Json[] | undefined) ?? [])].map((parameter) =>
      this.resolve(parameter),
    );
    for (const parameter of parameters) {
      const source = parameter.in === 'path' ? request.params : parameter.in === 'query' ? request.query : null;
      if (!source) continue;
      const name = String(parameter.name);
      const value = source[name];
      if (value === undefined) {
        if (parameter.required) problems.push(`${String(parameter.in)} parameter ${name} missing`);
        continue;
      }
      const validate = this.compile(this.coercing, `param:${operation.method}:${operation.path}:${name}`, parameter.schema as Json);
      if (!validate(value)) problems.push(`${String(parameter.in)} parameter ${name}: ${this.coercing.errorsText(validate.errors)}`);
    }
    for (const name of Object.keys(request.query)) {
      if (!parameters.some((parameter) => parameter.in === 'query' && parameter.name === name)) problems.push(`query parameter ${name} not in the contract`);
    }
    const body = definition.requestBody ? this.resolve(definition.requestBody as Json) : null;
    if (body) {
      const schema = ((body.content as Json)['application/json'] as Json).schema as Json;
      const validate = this.compile(this.ajv, `body:${operation.method}:${operation.path}`, schema);
      if (!validate(request.body)) problems.push(`request body: ${this.ajv.errorsText(validate.errors)}`);
    } else if (request.body !== undefined && request.body !== null) {
      problems.push('request body where the contract has none');
    }
    return problems;
  }

  /** Problems of an answer (status, JSON body) against the operation's declared responses. */
  checkResponse(operation: Operation, status: number, body: unknown): string[] {
    const definition = this.pathItem(operation)[operation.method] as Json;
    const declared = (definition.responses as Json)[String(status)] as Json | undefined;
    if (!declared) return [`status ${status} is not a declared response of ${operation.method.toUpperCase()} ${operation.path}`];
    const response = this.resolve(declared);
    const content = response.content as Json | undefined;
    if (!content) return body === undefined || body === null ? [] : [`status ${status} declares no body`];
    const media = (content['application/json'] ?? content['application/problem+json']) as Json;
    const validate = this.compile(this.ajv, `response:${operation.method}:${operation.path}:${status}`, media.schema as Json);
    return validate(body) ? [] : [`response ${status}: ${this.ajv.errorsText(validate.errors)}`];
  }

  /** A callback body (the PSP's POST {webhookUrl}/pix, /rec or /cobr) against WebhookPixBody, WebhookRecBody or WebhookCobRBody. */
  checkNotification(body: unknown, kind: 'pix' | 'rec' | 'cobr' = 'pix'): string[] {
    const name = { pix: 'WebhookPixBody', rec: 'WebhookRecBody', cobr: 'WebhookCobRBody' }[kind];
    const requestBody = this.resolve({ $ref: `#/components/requestBodies/${name}` });
    const schema = ((requestBody.content as Json)['application/json'] as Json).schema as Json;
    const validate = this.compile(this.ajv, `callback:${kind}`, schema);
    return validate(body) ? [] : [`notification: ${this.ajv.errorsText(validate.errors)}`];
  }

  private pathItem(operation: Operation): Json {
    const item = (this.document.paths as Json)[operation.path] as Json | undefined;
    if (!item?.[operation.method]) throw new Error(`${operation.method} ${operation.path} is not in API Pix 2.9.0`);
    return item;
  }

  /** Follows a local `$ref` (#/components/…) to its definition. */
  private resolve(node: Json): Json {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    let target: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[part];
    return this.resolve(target as Json);
  }

  /** Schemas keep their `#/components/…` references, resolved inside the whole document. */
  private compile(ajv: Ajv, key: string, schema: Json): ValidateFunction {
    let validate = this.cache.get(key);
    if (!validate) {
      validate = ajv.compile({ $id: `https://double.test/${encodeURIComponent(key)}`, ...rebase(schema) });
      this.cache.set(key, validate);
    }
    return validate;
  }
}

/** Local references point into the document registered as `pix-api`. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"https://double.test/pix-api#/')) as Json;
}
