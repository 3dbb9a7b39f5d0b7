import { fitsNumberFormat, NUMBER_FORMATS } from '../string-formats.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, Site } from './generation.js';
import { hasOwn, type SchemaObject } from './json-schema.js';
import { NUMBER_KEYWORDS } from './schema-keywords.js';

/**
 * Numbers to try for an `integer` or `number` schema, plausible ones first: drawn from a small
 * window inside minimum/maximum (exclusive or not), on the multipleOf grid, within the number format.
 */
export function* numberCandidates(generation: Generation, schema: SchemaObject, site: Site, wantInteger: boolean): Generator<number> {
  const format = typeof schema.format === 'string' ? NUMBER_FORMATS.get(schema.format) : undefined;
  const integer = wantInteger || format?.integer === true;
  const bounds = numericBounds(schema);
  const multipleOf = typeof schema.multipleOf === 'number' ? schema.multipleOf : undefined;
  const fits = (value: number): boolean =>
    Number.isFinite(value) &&
    (bounds.lowExclusive ? value > bounds.low : value >= bounds.low) &&
    (bounds.highExclusive ? value < bounds.high : value <= bounds.high) &&
    (!integer || Number.isInteger(value)) &&
    (multipleOf === undefined || Number.isInteger(value / multipleOf)) &&
    (format === undefined || fitsNumberFormat(format, value));
  const seen = new Set<number>();
  const fresh = (value: number): boolean => {
    // -0 and 0 are the same JSON number.
    const normal = value === 0 ? 0 : value;
    if (seen.has(normal) || !fits(normal)) return false;
    seen.add(normal);
    return true;
  };
  const step = integer ? integerStep(multipleOf) : multipleOf;
  if (step === undefined && integer) {
    throw new UnsupportedSchemaError(['multipleOf'], site.path, `it cannot find whole multiples of ${multipleOf}`);
  }
  if (step !== undefined) {
    const decimals = decimalPlaces(step);
    const valueOf = (multiple: number): number => (decimals > 0 && decimals <= 20 ? Number((multiple * step).toFixed(decimals)) : multiple * step);
    let lowest = Math.ceil(bounds.low / step);
    if (bounds.lowExclusive && lowest * step <= bounds.low) lowest++;
    let highest = Math.floor(bounds.high / step);
    if (bounds.highExclusive && highest * step >= bounds.high) highest--;
    const span = Math.max(1, Math.floor(100 / step));
    const [first, last] = plausibleWindow(lowest, highest, span, 1);
    for (let attempt = 0; attempt < 8; attempt++) {
      const value = valueOf(generation.random.integer(first, last));
      if (fresh(value)) yield value;
    }
    // ajv checks multipleOf by exact float division, so some multiples fail; scan for others.
    for (let multiple = first; multiple <= Math.min(last, first + 64); multiple++) {
      const value = valueOf(multiple);
      if (fresh(value)) yield value;
    }
  } else {
    const [first, last] = plausibleWindow(bounds.low, bounds.high, 100, 0);
    for (let attempt = 0; attempt < 6; attempt++) {
      const raw = first + generation.random.next() * (last - first);
      for (const places of [2, 4, 8]) {
        const rounded = Math.round(raw * 10 ** places) / 10 ** places;
        if (fresh(rounded)) {
          yield rounded;
          break;
        }
      }
    }
    for (const value of [first / 2 + last / 2, bounds.low, bounds.high, first, last]) if (fresh(value)) yield value;
  }
  if (seen.size === 0) {
    const keywords = [...NUMBER_KEYWORDS, 'format'].filter((keyword) => hasOwn(schema, keyword));
    throw new UnsupportedSchemaError(
      keywords,
      site.path,
      `no ${integer ? 'integer' : 'number'} satisfies ${keywords.map((keyword) => `${keyword} ${JSON.stringify(schema[keyword])}`).join(', ')}`,
    );
  }
}

export function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

function decimalPlaces(value: number): number {
  if (Number.isInteger(value)) return 0;
  const [mantissa, exponent] = value.toExponential().split('e');
  const fraction = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/** The smallest positive integer that is a multiple of `multipleOf` (1 without one). */
function integerStep(multipleOf: number | undefined): number | undefined {
  if (multipleOf === undefined) return 1;
  if (Number.isInteger(multipleOf)) return multipleOf;
  const places = decimalPlaces(multipleOf);
  if (places > 15) return undefined;
  const scale = 10 ** places;
  const scaled = Math.round(multipleOf * scale);
  return scaled / greatestCommonDivisor(scaled, scale);
}

function numericBounds(schema: SchemaObject): { low: number; lowExclusive: boolean; high: number; highExclusive: boolean } {
  let low = Number.NEGATIVE_INFINITY;
  let lowExclusive = false;
  let high = Number.POSITIVE_INFINITY;
  let highExclusive = false;
  if (typeof schema.minimum === 'number') low = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= low) [low, lowExclusive] = [schema.exclusiveMinimum, true];
  if (typeof schema.maximum === 'number') high = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= high) [high, highExclusive] = [schema.exclusiveMaximum, true];
  return { low, lowExclusive, high, highExclusive };
}

/**
 * The part of [low, high] to draw plausible values from: all of it when both ends are set,
 * `span` past the one end that is, or [origin, origin + span] when neither is.
 */
function plausibleWindow(low: number, high: number, span: number, origin: number): [number, number] {
  const lowSet = Number.isFinite(low);
  const highSet = Number.isFinite(high);
  if (lowSet && highSet) return Number.isFinite(high - low) ? [low, high] : [Math.max(low, -span), Math.min(high, span)];
  if (lowSet) return [low, low + span];
  if (highSet) return [high - span, high];
  return [origin, origin + span];
}
