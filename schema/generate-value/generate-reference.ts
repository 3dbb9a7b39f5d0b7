import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, Site } from './generation.js';
import type { SchemaObject } from './json-schema.js';
import { generateMerged } from './merge-schemas.js';
import { hasConstraints } from './schema-keywords.js';

/** The value for a `$ref`: its target's value, or the merge of both when the reference has siblings. */
export function generateReference(generation: Generation, schema: SchemaObject, site: Site): unknown {
  if (hasConstraints(schema, ['$ref'])) return generateMerged(generation, [schema], site);
  const reference = schema.$ref as string;
  const { target, path } = generation.resolve(reference);
  if (generation.alreadyEntered(site, site.references, target, path)) {
    throw new UnsupportedSchemaError(
      ['$ref'],
      site.path,
      `the reference to ${path || 'the root'} leads back to itself without nesting a value, so it never resolves`,
    );
  }
  return generation.generate({ ...site, schema: target, path, references: [...site.references, { target, depth: site.depth }] });
}
