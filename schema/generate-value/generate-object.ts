import { patternExample } from '../pattern-example.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { accessor } from './access-path.js';
import type { Generation, Site } from './generation.js';
import { hasOwn, isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';
import { conjunction } from './merge-schemas.js';
import { stableKey } from './stable-key.js';
import { unique } from './unique.js';

/**
 * The value for an `object` schema: every required property, the optional ones while depth allows,
 * then invented keys for minProperties or a map-shaped object, within maxProperties.
 */
export function generateObject(generation: Generation, schema: SchemaObject, site: Site): Record<string, unknown> {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const atLimit = site.depth >= generation.options.maxDepth;
  const result: Record<string, unknown> = {};
  let count = 0;
  const add = (key: string): boolean => {
    if (hasOwn(result, key)) return true;
    try {
      setProperty(result, key, generateProperty(generation, schema, site, key));
      count++;
      return true;
    } catch (error) {
      // An optional property that cannot be made is simply left out.
      if (error instanceof UnsupportedSchemaError && !required.includes(key)) return false;
      throw error;
    }
  };
  for (const key of unique([...Object.keys(properties).filter((key) => !atLimit || required.includes(key)), ...required])) add(key);

  const dependents = isSchemaObject(schema.dependentRequired) ? schema.dependentRequired : {};
  for (const [key, needs] of Object.entries(dependents)) {
    if (!hasOwn(result, key) || !Array.isArray(needs)) continue;
    if (!needs.every((need: string) => add(need))) {
      if (required.includes(key))
        throw new UnsupportedSchemaError(
          ['dependentRequired'],
          site.path,
          `the required property ${JSON.stringify(key)} needs ${needs.join(', ')}, which could not all be made`,
        );
      delete result[key];
      count--;
    }
  }

  const maxProperties = typeof schema.maxProperties === 'number' ? schema.maxProperties : Number.POSITIVE_INFINITY;
  for (const key of Object.keys(result).reverse()) {
    if (count <= maxProperties) break;
    if (required.includes(key)) continue;
    delete result[key];
    count--;
  }
  if (count > maxProperties)
    throw new UnsupportedSchemaError(['maxProperties', 'required'], site.path, `it requires ${count} properties but allows at most ${maxProperties}`);

  // A map-shaped object (no named properties, a schema for the rest) gets one entry while depth allows.
  const mapShaped = Object.keys(properties).length === 0 && (isSchemaObject(schema.additionalProperties) || isSchemaObject(schema.patternProperties));
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const wanted = Math.min(maxProperties, Math.max(minProperties, mapShaped && !atLimit ? 1 : 0));
  for (const key of Object.keys(properties)) if (count < wanted) add(key);
  for (let attempt = 1; count < wanted && attempt <= wanted + 8; attempt++) {
    const key = inventKey(generation, schema, site, attempt, Object.keys(result));
    if (key !== undefined && !hasOwn(result, key) && !required.includes(key)) add(key);
  }
  if (count < minProperties)
    throw new UnsupportedSchemaError(['minProperties'], site.path, `it could make only ${count} of the ${minProperties} properties needed`);
  return result;
}

/** The value of property `key`: every schema that applies to it (properties, patternProperties, else additionalProperties), together. */
function generateProperty(generation: Generation, schema: SchemaObject, site: Site, key: string): unknown {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const patterns = isSchemaObject(schema.patternProperties) ? schema.patternProperties : {};
  const parts: Array<{ schema: JsonSchema; keyword: string; path: string }> = [];
  if (hasOwn(properties, key)) parts.push({ schema: properties[key] as JsonSchema, keyword: 'properties', path: `${site.path}.properties${accessor(key)}` });
  for (const [pattern, patternSchema] of Object.entries(patterns)) {
    if (new RegExp(pattern, 'u').test(key))
      parts.push({ schema: patternSchema as JsonSchema, keyword: 'patternProperties', path: `${site.path}.patternProperties${accessor(pattern)}` });
  }
  if (parts.length === 0) {
    const rest = hasOwn(schema, 'additionalProperties') ? (schema.additionalProperties as JsonSchema) : true;
    parts.push({ schema: rest, keyword: 'additionalProperties', path: `${site.path}.additionalProperties` });
  }
  const forbidding = parts.find((part) => part.schema === false);
  if (forbidding)
    throw new UnsupportedSchemaError(
      ['required', forbidding.keyword],
      site.path,
      `the property ${JSON.stringify(key)} is required but ${forbidding.keyword} does not allow it`,
    );
  if (hasOwn(schema, 'propertyNames') && generation.errors(schema.propertyNames as JsonSchema, key) !== undefined) {
    throw new UnsupportedSchemaError(
      ['required', 'propertyNames'],
      site.path,
      `the property ${JSON.stringify(key)} is required but its name is not allowed by propertyNames`,
    );
  }
  const child = conjunction(
    generation,
    parts.map((part) => part.schema),
  );
  return generation.generate({
    schema: child,
    check: child,
    path: parts[0]!.path,
    depth: site.depth + 1,
    name: key,
    avoid: undefined,
    references: site.references,
  });
}

/** A new property name for minProperties or a map-shaped object, or undefined if none fits. */
function inventKey(generation: Generation, schema: SchemaObject, site: Site, attempt: number, taken: readonly string[]): string | undefined {
  if (hasOwn(schema, 'propertyNames') && schema.propertyNames !== true) {
    const names = schema.propertyNames as JsonSchema;
    const avoid = new Set(taken.map(stableKey));
    try {
      const key = generation.generate({
        schema: names,
        check: names,
        path: `${site.path}.propertyNames`,
        depth: site.depth + 1,
        name: 'key',
        avoid,
        references: site.references,
      });
      return typeof key === 'string' ? key : undefined;
    } catch (error) {
      if (error instanceof UnsupportedSchemaError) return undefined;
      throw error;
    }
  }
  const patterns = isSchemaObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
  if (patterns.length > 0) {
    const pattern = patterns[(attempt - 1) % patterns.length]!;
    const example = patternExample(pattern, { random: generation.random, minLength: 1, maxLength: 32 });
    if (example.ok) {
      // A pattern like "^x-" always gives the same text; an unanchored end can take a counter.
      const numbered = `${example.text}${attempt}`;
      if (!taken.includes(example.text)) return example.text;
      if (new RegExp(pattern, 'u').test(numbered)) return numbered;
    }
  }
  return schema.additionalProperties === false ? undefined : `key-${attempt}`;
}

function setProperty(object: Record<string, unknown>, key: string, value: unknown): void {
  // Plain assignment to "__proto__" would change the prototype instead of adding a property.
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
