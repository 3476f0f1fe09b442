// An unknown query parameter is a 400, never silently ignored (`?film=x` must not
// answer every show). Done once for every route, as it is registered: a route's
// querystring schema refuses properties it does not declare, and a route that
// declares none gets an empty one.
import type { FastifySchema, RouteOptions } from 'fastify';

type ObjectSchema = { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown };

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

/** An onRoute hook: makes the route's querystring schema closed. */
export function refuseUnknownQueryParameters(route: RouteOptions): void {
  const declared = route.schema?.querystring as ObjectSchema | undefined;
  // A route that says what to do with other parameters, or whose schema is not a plain object, keeps its own rule.
  if (declared && (declared.type !== 'object' || declared.additionalProperties !== undefined)) return;
  const querystring = declared ? { ...declared, additionalProperties: false } : NO_PARAMETERS;
  route.schema = { ...route.schema, querystring } as FastifySchema;
  // A route with its own validator compiler (one that reads its body itself) still
  // gets its query parameters checked.
  const own = route.validatorCompiler;
  if (own) {
    route.validatorCompiler = (req) => (req.httpPart === 'querystring' ? onlyDeclared(req.schema as ObjectSchema) : own(req));
  }
}

/** A validator that refuses undeclared keys, with Ajv's error shape. */
function onlyDeclared(schema: ObjectSchema) {
  const known = new Set(Object.keys(schema.properties ?? {}));
  return (data: unknown) => {
    const unknown = Object.keys((data ?? {}) as object).filter((k) => !known.has(k));
    if (unknown.length === 0) return { value: data };
    return {
      error: unknown.map((k) => ({
        instancePath: '', schemaPath: '#/additionalProperties', keyword: 'additionalProperties',
        params: { additionalProperty: k }, message: 'must NOT have additional properties',
      })),
    };
  };
}
