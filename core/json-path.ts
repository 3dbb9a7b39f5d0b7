/** One step of a JSON access path: a property name, an array index, or a wildcard. */
export type PathSegment = { property: string } | { index: number } | { wildcard: true };

/** Appends a property name to a path in JSON access syntax, quoting it when needed. */
export function propertyPath(parent: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `${parent}.${name}` : `${parent}[${JSON.stringify(name)}]`;
}

/** Appends an array index to a path in JSON access syntax. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
