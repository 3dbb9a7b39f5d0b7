import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModeltapeError, TapeFormatError, describeSchemaErrors, type Normalizer } from '../recordings/index.js';
import { createValidator } from '../schema/index.js';

/** The name `modeltape` looks for in the working directory. */
export const CONFIG_FILE_NAME = 'modeltape.config.json';

/**
 * `modeltape.config.json`: how requests are keyed, and where upstreams are. Every field is
 * optional; fields starting with `_` are notes.
 *
 * ```json
 * {
 *   "_note": "prompt text carries today's date",
 *   "normalizers": [
 *     { "path": ".metadata.request_id" },
 *     { "pattern": "\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z", "placeholder": "<timestamp>" }
 *   ],
 *   "keyHeaders": ["anthropic-beta", "anthropic-version", "openai-beta"],
 *   "upstreams": { "vllm": "http://127.0.0.1:8000" }
 * }
 * ```
 */
export interface ModeltapeConfig {
  /** Rewrites applied to JSON request bodies before keying, at record and at replay alike. */
  normalizers?: Normalizer[];
  /** Request headers that are part of the key. @default anthropic-beta, anthropic-version, openai-beta */
  keyHeaders?: string[];
  /** Upstreams to add or override, by name. */
  upstreams?: Record<string, string>;
}

const notes = { '^_': {} };
const configSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: notes,
  properties: {
    normalizers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        patternProperties: notes,
        properties: { path: { type: 'string', minLength: 1 }, pattern: { type: 'string', minLength: 1 }, flags: { type: 'string' }, placeholder: { type: 'string' } },
        oneOf: [{ required: ['path'] }, { required: ['pattern'] }],
      },
    },
    keyHeaders: { type: 'array', items: { type: 'string', minLength: 1 } },
    upstreams: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const validateConfig = createValidator().compile(configSchema);

/**
 * Reads a config file: the one named, or `modeltape.config.json` in `cwd` when there is one.
 * Returns an empty config (and no file) when there is none. Throws naming the file and the
 * field (and the nearest known one) when it does not fit the schema.
 */
export function loadConfig(file?: string, cwd: string = process.cwd()): { config: ModeltapeConfig; file: string | undefined } {
  const path = file === undefined ? resolve(cwd, CONFIG_FILE_NAME) : resolve(cwd, file);
  if (!existsSync(path)) {
    if (file !== undefined) throw new ModeltapeError('config_not_found', `Config file ${file} does not exist.`);
    return { config: {}, file: undefined };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'is a directory, not a file' : `cannot be read: ${(error as Error).message}`;
    throw new ModeltapeError('config_invalid', `Config file ${path} ${reason}. Pass a JSON file with --config, or remove the path to use ${CONFIG_FILE_NAME} from the current directory.`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ModeltapeError('config_invalid', `Config file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!validateConfig(value)) throw new TapeFormatError(describeSchemaErrors(validateConfig.errors ?? [], path, 1, 'config'), 'modeltape config');
  return { config: value as ModeltapeConfig, file: path };
}
