/**
 * A value that satisfies a JSON Schema, for a policy that must answer in a schema's shape (a
 * forced tool's input, a JSON mode answer) without being told what to say. Deterministic: the
 * first enum value or constant, the minimum, one item, every property. Covers the keywords tool
 * and output schemas use; anything else gets `null`.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** An example value of `schema` (references within it are followed through `$defs`). */
export function schemaExample(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isObject(schema) || depth > 20) return null;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace(/^#\/(\$defs|definitions)\//, "");
    const defs = isObject(root) ? (root.$defs ?? root.definitions) : undefined;
    return schemaExample(isObject(defs) ? defs[name] : undefined, root, depth + 1);
  }
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      return schemaExample(options[0], root, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object":
      return objectExample(schema, root, depth);
    case "array":
      return [schemaExample(schema.items, root, depth + 1)];
    case "string":
      return stringExample(schema);
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return isObject(schema.properties) ? objectExample(schema, root, depth) : null;
  }
}

function objectExample(schema: Json, root: unknown, depth: number): Json {
  const out: Json = {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    out[name] = schemaExample(property, root, depth + 1);
  }
  return out;
}

function stringExample(schema: Json): string {
  if (schema.format === "date-time") return "2025-01-01T00:00:00Z";
  if (schema.format === "date") return "2025-01-01";
  if (schema.format === "email") return "someone@example.com";
  if (schema.format === "uri" || schema.format === "url") return "https://example.com/";
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  return "example".padEnd(min, "e");
}
