import { createHash } from 'node:crypto';
import { ollamaModelThinks } from '../../providers/internal.js';

/** One model the fake holds as an Ollama server: its name says it is fake. */
export interface OllamaLocalModel {
  /** `fake-<model>:<tag>`, as `/api/tags` lists it. */
  name: string;
  family: string;
  parameterSize: string;
  size: number;
  /** Ollama's capabilities: `completion`, `tools`, `thinking`, `embedding`. */
  capabilities: readonly string[];
}

/** The models every fake starts with. */
const STARTING_MODELS: readonly OllamaLocalModel[] = [
  { name: 'fake-llama3.2:latest', family: 'llama', parameterSize: '3.2B', size: 2_019_393_189, capabilities: ['completion', 'tools'] },
  { name: 'fake-qwen3:latest', family: 'qwen3', parameterSize: '8.2B', size: 5_225_388_164, capabilities: ['completion', 'tools', 'thinking'] },
  { name: 'fake-nomic-embed-text:latest', family: 'nomic-bert', parameterSize: '137M', size: 274_302_450, capabilities: ['embedding'] },
];

/**
 * The name the fake keeps a model under: `fake-` before it (unless it has it) and `:latest` when
 * it names no tag. `llama3.2`, `fake-llama3.2` and `llama3.2:latest` are one model.
 */
export function localName(model: string): string {
  const named = model.startsWith('fake-') ? model : `fake-${model}`;
  return /:[^/:]+$/.test(named) ? named : `${named}:latest`;
}

/** The digest Ollama would show, here a hash of the name: the same name, the same digest. */
export function modelDigest(name: string): string {
  return createHash('sha256').update(name).digest('hex');
}

/**
 * The models one fake holds as an Ollama server, changed by pull, create, copy and delete as a
 * real server's are, and the ones a chat or generate turn loaded (what `/api/ps` lists), in the
 * order they were first loaded. It holds at most `limit` of each, like the fake's history.
 */
export class OllamaLocalModels {
  readonly #models = new Map<string, OllamaLocalModel>(STARTING_MODELS.map((model) => [model.name, model]));
  readonly #loaded = new Set<string>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  list(): OllamaLocalModel[] {
    return [...this.#models.values()];
  }

  find(model: string): OllamaLocalModel | undefined {
    return this.#models.get(localName(model));
  }

  /** Adds a model (a pull, a create, a copy's destination), made like `from` when given. */
  add(model: string, from?: OllamaLocalModel): OllamaLocalModel {
    const name = localName(model);
    const made = { ...(from ?? guessModel(name)), name };
    this.#models.delete(name);
    this.#models.set(name, made);
    while (this.#models.size > this.#limit) this.#models.delete(this.#models.keys().next().value!);
    return made;
  }

  remove(model: string): boolean {
    this.#loaded.delete(localName(model));
    return this.#models.delete(localName(model));
  }

  /** A turn ran on this model: `/api/ps` lists it from now on. */
  load(model: string): void {
    const name = localName(model);
    this.#loaded.add(name);
    while (this.#loaded.size > this.#limit) this.#loaded.delete(this.#loaded.values().next().value!);
  }

  /** The loaded models, each as the fake holds it (or as it guesses one it does not hold). */
  running(): OllamaLocalModel[] {
    return [...this.#loaded].map((name) => this.#models.get(name) ?? guessModel(name));
  }
}

// A model the fake never had (a pull of any name succeeds): its family from its name, its size made up.
function guessModel(name: string): OllamaLocalModel {
  const base = name
    .replace(/^fake-/, '')
    .split(':')[0]!
    .split('/')
    .pop()!;
  const embedding = /embed/i.test(base);
  return {
    name,
    family: base.replace(/[\d.]+$/, '') || base,
    parameterSize: embedding ? '137M' : '7.6B',
    size: embedding ? 274_302_450 : 4_683_087_332,
    capabilities: embedding ? ['embedding'] : ['completion', 'tools', ...(ollamaModelThinks(name) ? ['thinking'] : [])],
  };
}
