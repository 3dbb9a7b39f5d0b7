import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { accessor, escapePointerSegment, unescapePointerSegment } from './access-path.js';
import { hasOwn, isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';

/** References are rewritten against this id, so any piece of the schema can be compiled alone. */
export const ROOT_ID = 'https://modeltape.invalid/generate-value/schema.json';

/** The absolute form of a local `$ref`, pointing into the prepared copy. */
export function rewriteReference(root: JsonSchema, reference: unknown, path: string): string {
  const { translated } = followReference(root, reference, path);
  return `${ROOT_ID}#${translated.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
}

/** What a local `$ref` points at in the original schema, and its pointer in the prepared copy. */
function followReference(root: JsonSchema, reference: unknown, path: string): { target: unknown; translated: string[] } {
  if (typeof reference !== 'string' || !(reference === '#' || reference.startsWith('#/'))) {
    throw new UnsupportedSchemaError(
      ['$ref'],
      path,
      `only references inside the same schema ("#", "#/$defs/Name") are followed, not ${JSON.stringify(reference)}`,
    );
  }
  const segments = reference === '#' ? [] : reference.slice(2).split('/').map(unescapePointerSegment);
  const translated: string[] = [];
  let node: unknown = root;
  for (const [index, segment] of segments.entries()) {
    let step = segment;
    // Follow the draft-07 tuple rewrite done by prepareSchema.
    if (isSchemaObject(node) && Array.isArray(node.items)) {
      if (segment === 'items' && /^\d+$/.test(segments[index + 1] ?? '')) step = 'prefixItems';
      else if (segment === 'additionalItems') step = 'items';
    }
    node = Array.isArray(node) ? node[Number(segment)] : isSchemaObject(node) && hasOwn(node, segment) ? node[segment] : undefined;
    if (node === undefined) throw new UnsupportedSchemaError(['$ref'], path, `${JSON.stringify(reference)} points at nothing in the schema`);
    translated.push(step);
  }
  return { target: node, translated };
}

/** The schema an absolute `$ref` of the prepared copy points at, and where, in access syntax. */
export function resolvePrepared(root: JsonSchema, reference: string): { target: JsonSchema; path: string } {
  const fragment = reference.slice(ROOT_ID.length + 1);
  const segments = fragment === '' ? [] : fragment.slice(1).split('/').map(unescapePointerSegment);
  let node: unknown = root;
  let path = '';
  for (const segment of segments) {
    path += Array.isArray(node) ? accessor(Number(segment)) : accessor(segment);
    node = Array.isArray(node) ? node[Number(segment)] : (node as SchemaObject)[segment];
  }
  return { target: node as JsonSchema, path };
}
