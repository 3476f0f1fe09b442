// Checks every answer a test receives against the service's own OpenAPI document
// (/openapi.json), so the document stays true: an undeclared status, content type
// or a body that does not match its schema is a mismatch. Routing and schema
// validation are openapi-backend's (matchOperation, validateResponse); this file
// only picks what to compare.
import { OpenAPIBackend, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import type { HttpAnswer } from './http.js';

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
type Operation = { operationId?: string; responses?: Responses };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;
// Served but not part of the API it documents: the document itself and the page that renders it.
const UNDOCUMENTED = /^\/(?:openapi\.json|docs(?:\/.*)?)$/;

const mediaType = (a: HttpAnswer) => String(a.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();

/**
 * openapi-backend validates the `application/json` schema of a status only; our
 * errors are `application/problem+json`. For the body check only, each
 * response's JSON-like schema is offered under application/json too.
 */
function forBodyValidation(doc: Document): Document {
  const copy = structuredClone(doc) as unknown as { paths: Record<string, Record<string, Operation>> };
  for (const [path, item] of Object.entries(copy.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= `${method.toUpperCase()} ${path}`;
      for (const response of Object.values(op.responses ?? {})) {
        const json = Object.keys(response.content ?? {}).find((m) => JSON_MEDIA.test(m));
        if (json && !response.content!['application/json']) response.content!['application/json'] = response.content![json]!;
      }
    }
  }
  return copy as unknown as Document;
}

/** Initialised validators by the document's text. */
const compiled = new Map<string, Promise<OpenAPIBackend>>();

async function compile(doc: Document): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: forBodyValidation(doc),
    strict: true,
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  await api.init();
  return api;
}

export class AnswerCheck {
  readonly mismatches: string[] = [];
  checked = 0;

  private constructor(private readonly api: OpenAPIBackend) {}

  static async load(baseUrl: string): Promise<AnswerCheck> {
    const res = await fetch(`${baseUrl}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    const text = await res.text();
    // Compiling the document's validators took 2.4-2.9 s a service start: services of
    // one test worker that serve the same document share them (checks record nothing there).
    let api = compiled.get(text);
    if (!api) {
      if (compiled.size >= 8) compiled.clear();
      api = compile(JSON.parse(text) as Document);
      compiled.set(text, api);
      api.catch(() => compiled.delete(text));
    }
    return new AnswerCheck(await api);
  }

  /** Records a mismatch when the answer is not one the document declares. */
  check(method: string, url: string, a: HttpAnswer): void {
    const path = url.split('?', 1)[0]!;
    const what = `${method} ${path} → ${a.status} ${String(a.headers['content-type'] ?? '(no content type)')}`;
    const problem = this.mismatchOf(method, path, a);
    this.checked++;
    if (problem) this.mismatches.push(`${what}: ${problem}; body: ${a.text.slice(0, 300)}`);
  }

  private mismatchOf(method: string, path: string, a: HttpAnswer): string | null {
    const matched = this.api.matchOperation({ method, path, headers: {} });
    const op = matched as unknown as Operation | undefined;
    if (!matched || !op) {
      if (UNDOCUMENTED.test(path)) return null;
      // An unknown route (or method): only the contract's 404 NOT_FOUND may answer it.
      if (a.status === 404 && mediaType(a) === 'application/problem+json' && a.body?.code === 'NOT_FOUND') return null;
      return 'no operation in the document matches this method and path';
    }
    const responses = op.responses ?? {};
    const declared = responses[String(a.status)] ?? responses[`${String(a.status)[0]}XX`] ?? responses.default;
    if (!declared) return `status ${a.status} is not declared (declared: ${Object.keys(responses).join(', ')})`;
    const media = Object.keys(declared.content ?? {});
    if (media.length === 0) return a.text === '' ? null : 'a body where the document declares none';
    const type = mediaType(a);
    if (!media.includes(type)) return `content type ${type || '(none)'} is not declared (declared: ${media.join(', ')})`;
    // Images, streams and pages: status and content type only. A compressed body
    // is checked too: HttpAnswer.text is the decoded body.
    if (!JSON_MEDIA.test(type)) return null;
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return 'the body is not JSON';
    }
    const result = this.api.validateResponse(body, matched, a.status);
    return result.valid ? null : `body does not match: ${JSON.stringify(result.errors).slice(0, 500)}`;
  }
}
