import { isRecord } from '../../core/internal.js';

/**
 * Gemini's `responseSchema` and a declaration's `parameters` are its OpenAPI 3.0 subset: types
 * may be upper case (`OBJECT`, the `Type` enum of @google/genai) and `nullable: true` stands for
 * a type that also admits null. This writes one as the JSON Schema it means, so one validator
 * checks values against it; `responseJsonSchema` and `parametersJsonSchema` are JSON Schema already.
 */
export function openApiToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiToJsonSchema);
  if (!isRecord(schema)) return schema;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toLowerCase();
    else if (key === 'properties' && isRecord(value))
      converted.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, openApiToJsonSchema(property)]));
    else if (key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'not') converted[key] = openApiToJsonSchema(value);
    // `format`, `example`, `propertyOrdering` and the like say nothing a value can break here.
    else if (key === 'propertyOrdering' || key === 'example') continue;
    else converted[key] = value;
  }
  if (schema.nullable === true) {
    if (typeof converted.type === 'string') converted.type = [converted.type, 'null'];
    else if (converted.type === undefined && Array.isArray(converted.anyOf)) converted.anyOf = [...(converted.anyOf as unknown[]), { type: 'null' }];
    if (Array.isArray(converted.enum)) converted.enum = [...(converted.enum as unknown[]), null];
  }
  return converted;
}
