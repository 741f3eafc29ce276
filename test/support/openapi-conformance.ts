import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Checks HTTP responses against the service's own OpenAPI document: the status must be
 * documented for the operation, the headers it declares required must be there (and match
 * their schemas), and a JSON body must match the response schema. Responses of paths or
 * methods the document does not describe (unknown routes, wrong methods) must be errors in
 * the error body of docs/api.md. Used for every response the e2e suites receive.
 */

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literalLength: number;
  responses: Record<string, Json>;
}

export interface ObservedResponse {
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string | undefined;
  body: unknown;
  /** Whether a body was sent at all (HEAD and 304 have none). */
  hasBody: boolean;
}

// Deliberately left out of the document: the interactive docs (a page and its assets),
// the web console (pages and assets), the document itself, and the operational endpoints
// (docs/operations.md).
const UNDESCRIBED = [
  /^\/docs(\/[^/]+)?$/,
  /^\/console(\/.*)?$/,
  /^\/v1\/openapi\.(json|yaml)$/,
  /^\/health\/(live|ready)$/,
  /^\/metrics$/,
];

const DOC_ID = 'https://petstore.invalid/openapi.json';

export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats.default(this.ajv);
    // The whole document is registered, so that response schemas are compiled by reference
    // and their own `#/components/...` references resolve. Its OpenAPI-only keywords are
    // ignored (strict: false).
    this.ajv.addSchema({ ...document, $id: DOC_ID });
    this.operations = Object.entries(document.paths as Record<string, Json>)
      .flatMap(([template, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
          literalLength: template.replace(/\{[^}]+\}/g, '').length,
          responses: (operation as { responses: Record<string, Json> }).responses,
        })),
      )
      // A literal segment wins over a template (`/pets/images` before `/pets/{petId}`).
      .sort((a, b) => b.literalLength - a.literalLength);
  }

  /** Every way the response departs from the document; empty when it conforms. */
  check(res: ObservedResponse): string[] {
    // CORS preflights are answered by the CORS middleware for any path, not by operations.
    if (res.method === 'OPTIONS' && res.status === 204) return [];
    const method = res.method === 'HEAD' ? 'GET' : res.method;
    const operation = this.operations.find((o) => o.method === method && o.pattern.test(res.path));
    const where = `${res.method} ${res.path} → ${res.status}`;
    if (!operation) {
      if (res.status < 400 && UNDESCRIBED.some((p) => p.test(res.path))) return [];
      if (res.status < 400) return [`${where}: the operation is not in the OpenAPI document`];
      return this.checkBody(where, '#/components/schemas/ErrorResponse', res);
    }
    const status = String(res.status);
    const response = operation.responses[status] ?? operation.responses.default;
    const pointer = `#/paths/${escape(operation.template)}/${method.toLowerCase()}/responses/${status}`;
    if (!response) {
      return [`${where}: status ${status} is not documented for ${method} ${operation.template}`];
    }
    const problems = this.checkHeaders(where, response, res);
    const content = response.content as Record<string, Json> | undefined;
    if (!res.hasBody || res.method === 'HEAD') return problems;
    if (!content) {
      return [...problems, `${where}: a body was sent but the response declares none`];
    }
    const mediaType = (res.contentType ?? '').split(';')[0].trim();
    if (!(mediaType in content)) {
      return [
        ...problems,
        `${where}: content type ${mediaType} is not one of ${Object.keys(content).join(', ')}`,
      ];
    }
    if (mediaType !== 'application/json') return problems;
    return [
      ...problems,
      ...this.checkBody(where, `${pointer}/content/application~1json/schema`, res),
    ];
  }

  private checkHeaders(where: string, response: Json, res: ObservedResponse): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(
      (response.headers ?? {}) as Record<string, Json>,
    )) {
      const header = this.resolve(declared);
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const schema = header.schema as Json | undefined;
      if (!schema) continue;
      const text = Array.isArray(value) ? value.join(', ') : value;
      const typed = schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
      const validate = this.compileCached(schema);
      if (!validate(typed)) {
        problems.push(`${where}: header ${name}=${text} ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  }

  private checkBody(where: string, pointer: string, res: ObservedResponse): string[] {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (validate(res.body)) return [];
    const errors = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
      .join('; ');
    return [
      `${where}: body does not match ${pointer}: ${errors}\nbody: ${JSON.stringify(res.body).slice(0, 2000)}`,
    ];
  }

  private compileCached(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    return ref
      .slice(2)
      .split('/')
      .reduce<Json>(
        (node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json,
        this.document,
      );
  }
}

/** A path template as a JSON pointer segment inside a URI fragment. */
const escape = (segment: string) =>
  segment.replace(/~/g, '~0').replace(/\//g, '~1').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
