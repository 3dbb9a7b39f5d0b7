import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, Site } from './generation.js';
import { isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';
import { generateMerged } from './merge-schemas.js';
import { childSchemasWithPaths, hasConstraints, without } from './schema-keywords.js';
import { unique } from './unique.js';

/**
 * The value for an `anyOf` or `oneOf`: the first branch (with the schema's other keywords) that
 * gives a valid value. Branches that could recurse go last once the depth limit is reached.
 */
export function generateAlternative(generation: Generation, schema: SchemaObject, site: Site): unknown {
  const keyword = Array.isArray(schema.anyOf) ? 'anyOf' : 'oneOf';
  const branches = schema[keyword] as JsonSchema[];
  const restKey = `${keyword}:${generation.identity(schema)}`;
  const rest = generation.rests.get(restKey) ?? without(schema, [keyword]);
  generation.rests.set(restKey, rest);
  const plain = !hasConstraints(rest, []);
  const failures: Array<{ index: number; error: UnsupportedSchemaError }> = [];
  for (const index of branchOrder(generation, branches, site)) {
    const branch = branches[index]!;
    try {
      // The branch is checked against site.check, the whole schema, so oneOf still means exactly one.
      if (plain) return generation.generate({ ...site, schema: branch, path: `${site.path}.${keyword}[${index}]` });
      return generateMerged(generation, [rest, branch], site);
    } catch (error) {
      if (!(error instanceof UnsupportedSchemaError)) throw error;
      failures.push({ index, error });
    }
  }
  const keywords = unique([keyword, ...failures.flatMap((failure) => failure.error.keywords)]);
  const shown = failures.slice(0, 3).map((failure) => `branch ${failure.index}: at ${failure.error.path || 'the root'}, ${failure.error.reason}`);
  throw new UnsupportedSchemaError(keywords, site.path, `no branch of ${keyword} gives a valid value (${shown.join('; ')})`, { cause: failures[0]?.error });
}

function branchOrder(generation: Generation, branches: readonly JsonSchema[], site: Site): number[] {
  const order = branches.map((_, index) => index);
  if (site.depth < generation.options.maxDepth) return order;
  // At the depth limit, a branch that cannot recurse ends the value soonest.
  return order.sort((a, b) => Number(containsReference(generation, branches[a]!)) - Number(containsReference(generation, branches[b]!)));
}

function containsReference(generation: Generation, schema: JsonSchema): boolean {
  if (!isSchemaObject(schema)) return false;
  const known = generation.referencing.get(schema);
  if (known !== undefined) return known;
  const found = typeof schema.$ref === 'string' || childSchemasWithPaths(schema, '').some(([child]) => containsReference(generation, child));
  generation.referencing.set(schema, found);
  return found;
}
