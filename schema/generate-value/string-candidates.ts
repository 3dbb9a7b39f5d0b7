import type { Random } from '../seeded-random.js';
import { patternExample } from '../pattern-example.js';
import { STRING_FORMATS } from '../string-formats.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, Site } from './generation.js';
import type { SchemaObject } from './json-schema.js';
import { unique } from './unique.js';

/**
 * Strings to try for a `string` schema, readable ones first: a format's examples, or text made from
 * the property name; then text written from the `pattern`; then random words.
 */
export function* stringCandidates(generation: Generation, schema: SchemaObject, site: Site): Generator<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (minLength > maxLength)
    throw new UnsupportedSchemaError(['minLength', 'maxLength'], site.path, `minLength ${minLength} is more than maxLength ${maxLength}`);
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const regex = pattern === undefined ? undefined : new RegExp(pattern, 'u');
  const format = typeof schema.format === 'string' ? STRING_FORMATS.get(schema.format) : undefined;
  const freeLimit = Math.min(maxLength, Math.max(minLength, generation.options.maxLength));
  let closest: { text: string; misses: number; keywords: string[] } | undefined;
  let patternTrouble: string | undefined;
  const seen = new Set<string>();
  // Whether `text` meets the string keywords locally; remembers the nearest miss for the error.
  const fits = (text: string, source: string[]): boolean => {
    if (seen.has(text)) return false;
    const length = [...text].length;
    const misses = [
      ...(length < minLength ? ['minLength'] : []),
      ...(length > maxLength ? ['maxLength'] : []),
      ...(regex && !regex.test(text) ? ['pattern'] : []),
      ...(format && !format.isValid(text) ? ['format'] : []),
    ];
    if (misses.length === 0) {
      seen.add(text);
      return true;
    }
    if (!closest || misses.length < closest.misses) closest = { text, misses: misses.length, keywords: unique([...source, ...misses]) };
    return false;
  };
  if (format) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const text = format.example(generation.random, site.name);
      if (fits(text, ['format'])) yield text;
    }
  } else {
    for (let attempt = 0; attempt < 3; attempt++)
      for (const text of readableTexts(generation.random, site.name, minLength, freeLimit)) if (fits(text, [])) yield text;
  }
  if (pattern !== undefined) {
    for (let attempt = 0; attempt < 6; attempt++) {
      const example = patternExample(pattern, { random: generation.random, minLength, maxLength });
      if (!example.ok) {
        patternTrouble = example.reason;
        break;
      }
      if (fits(example.text, ['pattern'])) yield example.text;
    }
  }
  if (!format) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const text = randomWord(generation.random, minLength, freeLimit);
      if (fits(text, [])) yield text;
    }
  }
  if (seen.size === 0) {
    if (patternTrouble !== undefined) throw new UnsupportedSchemaError(['pattern'], site.path, `for the pattern ${JSON.stringify(pattern)}, ${patternTrouble}`);
    const keywords = closest?.keywords ?? ['type'];
    throw new UnsupportedSchemaError(
      keywords,
      site.path,
      `no string it made satisfies ${keywords.join(' and ')}${closest ? ` (nearest: ${JSON.stringify(closest.text)})` : ''}`,
    );
  }
}

/** `city` → `city-42`, then plainer forms a pattern may accept: `city`, `city42`. */
function readableTexts(random: Random, name: string | undefined, minimum: number, maximum: number): string[] {
  const base = name === undefined || name === '' ? 'example' : name;
  const number = random.integer(1, 99);
  return unique([`${base}-${number}`, base, `${base}${number}`].map((text) => fitLength(text, minimum, maximum)));
}

/** `text` cut or padded to a length in [minimum, maximum], keeping a trailing number when cutting. */
function fitLength(text: string, minimum: number, maximum: number): string {
  const characters = [...text];
  if (characters.length > maximum) {
    const suffix = [...(/-?\d+$/.exec(text)?.[0] ?? '')];
    if (suffix.length > 0 && suffix.length < maximum) return [...characters.slice(0, maximum - suffix.length), ...suffix].join('');
    // Too short for the name: keep the end, where the varying number is.
    if (maximum === 0) return '';
    return (suffix.length > 0 ? characters.slice(-maximum) : characters.slice(0, maximum)).join('');
  }
  if (characters.length < minimum) {
    const padded: string[] = [...characters];
    while (padded.length < minimum) padded.push('-', ...characters);
    return padded.slice(0, minimum).join('');
  }
  return text;
}

function randomWord(random: Random, minimum: number, maximum: number): string {
  const length = random.integer(Math.max(minimum, Math.min(1, maximum)), Math.max(minimum, Math.min(maximum, 8)));
  let word = '';
  for (let index = 0; index < length; index++) word += String.fromCharCode(0x61 + random.integer(0, 25));
  return word;
}
