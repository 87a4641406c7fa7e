/**
 * The OpenAPI document as Scalar's reference page (/docs) reads it. Its validator wants a `type` on
 * every schema, stricter than OpenAPI 3.1: `{}` (any value) and unions without `type` are spelled
 * out with the same meaning. /openapi.json itself stays as generated (the typed client's source).
 */
export function scalarDocument<T>(document: T): T {
  return withTypes(document);
}

/** A union without `type` gets the types of its branches (when each has one): the same meaning, and a `type` Scalar needs. */
function unionType(schema: Record<string, unknown>): { type?: string | string[] } {
  const branches = (schema.anyOf ?? schema.oneOf) as { type?: string | string[] }[] | undefined;
  if (!Array.isArray(branches) || 'type' in schema) return {};
  const types = new Set(
    branches.flatMap((b) => (b && typeof b === 'object' && 'type' in b ? [b.type ?? []].flat() : ['?'])),
  );
  if (types.has('?') || !types.size) return {};
  return { type: types.size === 1 ? [...types][0]! : [...types] };
}

/** Any JSON value, spelled with a `type`. */
const ANY_JSON = { type: ['null', 'boolean', 'string', 'number', 'object', 'array'], additionalProperties: true };

/** `additionalProperties: {}` becomes `true`, an empty item or property schema ANY_JSON, a union gets its branches' types. */
function withTypes<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withTypes) as T;
  if (node === null || typeof node !== 'object') return node;
  const isEmpty = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length;
  const withType = unionType(node as Record<string, unknown>);
  const entries = Object.entries({ ...withType, ...node }).map(([key, value]) => {
    if (key === 'additionalProperties' && isEmpty(value)) return [key, true];
    if (key === 'items' && isEmpty(value)) return [key, ANY_JSON];
    if (key === 'properties' && value && typeof value === 'object')
      return [
        key,
        Object.fromEntries(
          Object.entries(value).map(([name, schema]) => [name, isEmpty(schema) ? ANY_JSON : withTypes(schema)]),
        ),
      ];
    return [key, withTypes(value)];
  });
  return Object.fromEntries(entries) as T;
}
