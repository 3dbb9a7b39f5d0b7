import { ModeltapeError } from '../core/internal.js';

/**
 * The schema asks for something the generator cannot produce a valid value for, so it refuses
 * rather than guess: a keyword it does not honour (`not`, `if`, `contains`, an unknown keyword), a
 * `pattern` it cannot write text for, or constraints that contradict each other.
 */
export class UnsupportedSchemaError extends ModeltapeError {
  /** The keywords at fault, e.g. `['not']` or `['minimum', 'maximum']`; empty for the schema `false`. */
  readonly keywords: string[];
  /** Where in the schema, in JSON access syntax (`.properties.city`); empty for the root. */
  readonly path: string;
  /** Why, in words. */
  readonly reason: string;

  constructor(keywords: string[], path: string, reason: string, options?: { cause?: unknown }) {
    const named = keywords.length === 0 ? '' : `\n  keywords: ${keywords.join(', ')}`;
    super(
      'unsupported_schema',
      `Cannot generate a value for the schema at ${path === '' ? 'its root' : path}: ${reason}.${named}\n` +
        'Simplify that part of the schema, or give it an "examples" entry that is valid against it.',
      options,
    );
    this.keywords = keywords;
    this.path = path;
    this.reason = reason;
  }
}
