import { isIPv4, isIPv6 } from 'node:net';
import type { Random } from './seeded-random.js';

/** A JSON Schema string `format` the value generator can produce examples for. */
export interface StringFormat {
  /** A valid example, varied by `random` and made readable from the property name. */
  example(random: Random, name: string | undefined): string;
  /** Whether `text` is valid for this format. Registered with ajv, so it also judges user examples. */
  isValid(text: string): boolean;
}

/** A JSON Schema number `format` (the OpenAPI ones): the range and kind of number it allows. */
export interface NumberFormat {
  minimum: number;
  maximum: number;
  integer: boolean;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const EMAIL_LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IRI_CHARACTERS = /^(?:[^\s<>"{}|\\^`%]|%[0-9A-Fa-f]{2})*$/u;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DURATION = /^P(?:\d+W|(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?)$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
const RELATIVE_JSON_POINTER = /^(?:0|[1-9]\d*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;
const URI_TEMPLATE =
  /^(?:[^\s"'<>%\\^`{|}]|%[0-9A-Fa-f]{2}|\{[+#./;?&=,!@|]?[A-Za-z0-9_.%]+(?::[1-9]\d{0,3}|\*)?(?:,[A-Za-z0-9_.%]+(?::[1-9]\d{0,3}|\*)?)*\})*$/u;

/**
 * A lowercase, hyphenated form of a property name usable inside hostnames and email addresses:
 * `firstName` → `first-name`. Falls back to `example`.
 */
export function slug(name: string | undefined): string {
  const words = (name ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return words === '' ? 'example' : words;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day <= days;
}

function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (!match) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const offsetHour = match[4] === undefined ? 0 : Number(match[4]);
  const offsetMinute = match[5] === undefined ? 0 : Number(match[5]);
  // RFC 3339 allows a leap second, nothing else past :59.
  const secondOk = second <= 59 || (second === 60 && hour === 23 && minute === 59);
  return hour <= 23 && minute <= 59 && secondOk && offsetHour <= 23 && offsetMinute <= 59;
}

function isDateTime(text: string): boolean {
  const parts = text.split(/[Tt ]/);
  return parts.length === 2 && isDate(parts[0]!) && isTime(parts[1]!);
}

function isHostname(text: string, label: (part: string) => boolean): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every(label);
}

function isEmail(text: string, international: boolean): boolean {
  const at = text.lastIndexOf('@');
  if (at <= 0) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  const localOk = international
    ? !/[\s@]/.test(local) && !local.startsWith('.') && !local.endsWith('.') && !local.includes('..')
    : EMAIL_LOCAL_PART.test(local);
  return localOk && domain.includes('.') && isHostname(domain, international ? isInternationalLabel : (part) => HOSTNAME_LABEL.test(part));
}

function isInternationalLabel(part: string): boolean {
  return part.length > 0 && part.length <= 63 && !/[\s.@]/u.test(part) && !part.startsWith('-') && !part.endsWith('-');
}

function isUri(text: string, characters: RegExp): boolean {
  return SCHEME.test(text) && characters.test(text) && URL.canParse(text);
}

function isUriReference(text: string, characters: RegExp): boolean {
  if (!characters.test(text)) return false;
  return SCHEME.test(text) ? URL.canParse(text) : URL.canParse(text, 'https://example.com/');
}

function isRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

function exampleDate(random: Random): string {
  return `${random.integer(2020, 2029)}-${pad(random.integer(1, 12))}-${pad(random.integer(1, 28))}`;
}

function exampleTime(random: Random): string {
  return `${pad(random.integer(0, 23))}:${pad(random.pick([0, 15, 30, 45]))}:00Z`;
}

function exampleHex(random: Random, digits: number): string {
  let text = '';
  for (let index = 0; index < digits; index++) text += random.integer(0, 15).toString(16);
  return text;
}

function exampleUri(random: Random, name: string | undefined): string {
  return `https://example.com/${slug(name)}/${random.integer(1, 999)}`;
}

function exampleHostname(random: Random, name: string | undefined): string {
  return `${slug(name)}-${random.integer(1, 99)}.example.com`;
}

function exampleEmail(random: Random, name: string | undefined): string {
  const local = slug(name);
  // A property called `email` should not give `email-7@example.com`.
  return `${/(^|-)e-?mail($|-)/.test(local) ? 'user' : local}-${random.integer(1, 99)}@example.com`;
}

/** Every string format JSON Schema 2020-12 defines, each with an example maker and a checker. */
export const STRING_FORMATS: ReadonlyMap<string, StringFormat> = new Map<string, StringFormat>([
  ['date-time', { example: (random) => `${exampleDate(random)}T${exampleTime(random)}`, isValid: isDateTime }],
  ['date', { example: exampleDate, isValid: isDate }],
  ['time', { example: exampleTime, isValid: isTime }],
  [
    'duration',
    {
      example: (random) =>
        random.pick([
          `P${random.integer(1, 30)}D`,
          `PT${random.integer(1, 12)}H`,
          `PT${random.integer(1, 59)}M`,
          `P${random.integer(1, 6)}DT${random.integer(1, 23)}H`,
        ]),
      isValid: (text) => DURATION.test(text),
    },
  ],
  ['email', { example: exampleEmail, isValid: (text) => isEmail(text, false) }],
  ['idn-email', { example: exampleEmail, isValid: (text) => isEmail(text, true) }],
  ['hostname', { example: exampleHostname, isValid: (text) => isHostname(text, (part) => HOSTNAME_LABEL.test(part)) }],
  ['idn-hostname', { example: exampleHostname, isValid: (text) => isHostname(text, isInternationalLabel) }],
  // Documentation ranges (RFC 5737, RFC 3849): plausible and never anyone's real address.
  ['ipv4', { example: (random) => `192.0.2.${random.integer(1, 254)}`, isValid: (text) => isIPv4(text) }],
  ['ipv6', { example: (random) => `2001:db8::${random.integer(1, 0xffff).toString(16)}`, isValid: (text) => isIPv6(text) && !text.includes('%') }],
  ['uri', { example: exampleUri, isValid: (text) => isUri(text, URI_CHARACTERS) }],
  ['uri-reference', { example: exampleUri, isValid: (text) => isUriReference(text, URI_CHARACTERS) }],
  ['iri', { example: exampleUri, isValid: (text) => isUri(text, IRI_CHARACTERS) }],
  ['iri-reference', { example: exampleUri, isValid: (text) => isUriReference(text, IRI_CHARACTERS) }],
  [
    'uri-template',
    { example: (random, name) => `https://example.com/${slug(name)}/{id}?page=${random.integer(1, 9)}`, isValid: (text) => URI_TEMPLATE.test(text) },
  ],
  [
    'uuid',
    {
      // Version 4 layout, so it also passes validators that check the version and variant digits.
      example: (random) =>
        `${exampleHex(random, 8)}-${exampleHex(random, 4)}-4${exampleHex(random, 3)}-${random.pick(['8', '9', 'a', 'b'])}${exampleHex(random, 3)}-${exampleHex(random, 12)}`,
      isValid: (text) => UUID.test(text),
    },
  ],
  ['json-pointer', { example: (random, name) => `/${slug(name)}/${random.integer(0, 9)}`, isValid: (text) => JSON_POINTER.test(text) }],
  ['relative-json-pointer', { example: (random, name) => `${random.integer(0, 2)}/${slug(name)}`, isValid: (text) => RELATIVE_JSON_POINTER.test(text) }],
  ['regex', { example: (random, name) => `^${slug(name)}-[0-9]{${random.integer(1, 4)}}$`, isValid: isRegex }],
]);

/** The OpenAPI number formats, common in tool schemas converted from OpenAPI documents. */
export const NUMBER_FORMATS: ReadonlyMap<string, NumberFormat> = new Map<string, NumberFormat>([
  ['int32', { minimum: -(2 ** 31), maximum: 2 ** 31 - 1, integer: true }],
  ['int64', { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, integer: true }],
  ['float', { minimum: -3.4028234663852886e38, maximum: 3.4028234663852886e38, integer: false }],
  ['double', { minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, integer: false }],
]);

/** Whether `value` fits a number format: in range, and whole when the format is an integer one. */
export function fitsNumberFormat(format: NumberFormat, value: number): boolean {
  return Number.isFinite(value) && value >= format.minimum && value <= format.maximum && (!format.integer || Number.isInteger(value));
}
