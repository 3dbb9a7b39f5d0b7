import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, Site } from './generation.js';
import { hasOwn, type JsonSchema, type SchemaObject } from './json-schema.js';
import { stableKey } from './stable-key.js';

/**
 * The value for an `array` schema: its `prefixItems` in order, then up to maxItems free items
 * (at least minItems), all different under `uniqueItems`.
 */
export function generateArray(generation: Generation, schema: SchemaObject, site: Site): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
  const items = hasOwn(schema, 'items') ? (schema.items as JsonSchema) : true;
  const lower = typeof schema.minItems === 'number' ? schema.minItems : 0;
  let upper = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  if (items === false) upper = Math.min(upper, prefix.length);
  if (lower > upper) {
    const keywords = ['minItems', 'maxItems', 'items', 'prefixItems'].filter((keyword) => hasOwn(schema, keyword));
    throw new UnsupportedSchemaError(keywords, site.path, `it needs at least ${lower} items but allows at most ${upper}`);
  }
  let length = lower;
  if (site.depth < generation.options.maxDepth && prefix.length > 0) {
    // A tuple gets exactly its prefix, not extra free items.
    length = Math.min(upper, Math.max(lower, prefix.length));
  } else if (site.depth < generation.options.maxDepth) {
    const most = Math.min(upper, Math.max(lower, generation.options.maxItems));
    length = generation.random.integer(Math.min(most, Math.max(lower, Math.min(upper, 1))), most);
  }
  const distinct = schema.uniqueItems === true;
  const values: unknown[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < length; index++) {
    const inPrefix = index < prefix.length;
    const itemSchema = inPrefix ? prefix[index]! : items;
    const item: Site = {
      schema: itemSchema,
      check: itemSchema,
      path: inPrefix ? `${site.path}.prefixItems[${index}]` : `${site.path}.items`,
      depth: site.depth + 1,
      name: site.name,
      avoid: distinct ? seen : undefined,
      references: site.references,
    };
    let produced: { value: unknown } | undefined;
    let failure: unknown;
    for (let attempt = 0; attempt < (distinct ? 8 : 1) && !produced; attempt++) {
      try {
        const value = generation.generate(item);
        if (!distinct || !seen.has(stableKey(value))) produced = { value };
      } catch (error) {
        if (!(error instanceof UnsupportedSchemaError)) throw error;
        failure = error;
        break;
      }
    }
    if (!produced) {
      // Items past minItems are optional: a shorter array is still valid.
      if (index >= lower) break;
      throw failure ?? new UnsupportedSchemaError(['uniqueItems'], site.path, `it could not make ${lower} different items`);
    }
    values.push(produced.value);
    seen.add(stableKey(produced.value));
  }
  return values;
}
