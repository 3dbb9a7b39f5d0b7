/** `.properties.city`, `.anyOf[0]`, `["first name"]`: how paths are written in messages. */
export function accessor(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A JSON pointer's segments in access syntax; a segment of digits is taken as an array index. */
export function accessPath(segments: readonly string[]): string {
  return segments.map((segment) => accessor(/^\d+$/.test(segment) ? Number(segment) : segment)).join('');
}

/** A JSON pointer segment as written in the schema: percent-decoded, then `~1` → `/` and `~0` → `~`. */
export function unescapePointerSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all; use it as written.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A property name as a JSON pointer segment inside a `$ref` URI: `~0`, `~1`, and percent-encoding. */
export function escapePointerSegment(segment: string): string {
  return segment
    .replace(/~/g, '~0')
    .replace(/\//g, '~1')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@]/gu, (character) => encodeURIComponent(character));
}
