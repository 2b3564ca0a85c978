import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium } from 'playwright-core';

/**
 * The Chromium that npm delivers: `@sparticuz/chromium` carries a brotli-compressed Chromium
 * (`bin/chromium.br`) and the few shared libraries it links besides glibc (`bin/al2023.tar.br`:
 * NSS, NSPR, expat), so the browser tests need no Debian package and no download.
 *
 * The package's own `executablePath()` unpacks into the shared system temp folder and returns
 * whatever `/tmp/chromium` already holds, even half-written by another run; here it is unpacked
 * once per package version under `node_modules/.cache/`, into a private folder renamed into place
 * when complete, so that runs in parallel never see a partial browser.
 */
// Its types are declared in chromium-binary.d.mts. A JavaScript module, so that
// bench/console.mjs launches the same browser as the browser tests.

const ROOT = resolve(import.meta.dirname, '../..');

/** @returns {{ bin: string, version: string }} */
function packageBin() {
  // The package exports only its code, not its package.json: npm installs it at the top level.
  const folder = join(ROOT, 'node_modules', '@sparticuz', 'chromium');
  const version = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
  return { bin: join(folder, 'bin'), version };
}

/** @param {string} archive @param {string} into */
async function untar(archive, into) {
  await mkdir(into, { recursive: true });
  // Decompressed to a file first: tar stops reading at the archive's end marker, and a pipe into it
  // then closes before brotli has written the padding behind it ("Premature close").
  const plain = join(into, '.archive.tar');
  await pipeline(createReadStream(archive), createBrotliDecompress(), createWriteStream(plain));
  const tar = spawn('tar', ['-x', '-f', plain, '-C', into], { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((done, fail) => {
    tar.once('error', fail);
    tar.once('close', done);
  });
  await rm(plain, { force: true });
  if (code !== 0) throw new Error(`tar could not unpack ${archive} (exit ${code})`);
}

/** @type {Promise<import('./chromium-binary.d.mts').ChromiumBinary> | undefined} */
let unpacked;

/** Unpacks the browser on first use (about 10 s), then answers at once. */
function npmChromium() {
  unpacked ??= unpack();
  return unpacked;
}

async function unpack() {
  const { bin, version } = packageBin();
  const cache = join(ROOT, 'node_modules', '.cache');
  const target = join(cache, `sparticuz-chromium-${version}`);
  const binary = (/** @type {string} */ folder) => ({ executablePath: join(folder, 'chromium'), libraryPath: join(folder, 'lib') });
  if (existsSync(join(target, 'complete'))) return binary(target);
  await mkdir(cache, { recursive: true });
  const staging = await mkdtemp(join(cache, `sparticuz-chromium-${version}.partial-`));
  try {
    await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(join(staging, 'chromium')));
    await chmod(join(staging, 'chromium'), 0o755);
    // NSS, NSPR and expat, which Chromium links and a bare machine may lack (lib/).
    await untar(join(bin, 'al2023.tar.br'), staging);
    // SwiftShader, the software renderer Chromium loads from beside its binary.
    await untar(join(bin, 'swiftshader.tar.br'), staging);
    await writeFile(join(staging, 'complete'), version);
    await rename(staging, target).catch(async (error) => {
      // Another run finished first: use its copy.
      if (!existsSync(join(target, 'complete'))) throw error;
      await rm(staging, { recursive: true, force: true });
    });
    return binary(target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Headless Chromium driven by playwright-core (which never downloads a browser): the one npm
 * delivers in `@sparticuz/chromium`, with the shared libraries it carries, so that `npm test`
 * needs nothing but Node.js; CHROMIUM_PATH names another build instead (e.g. /usr/bin/chromium).
 */
export async function launchChromium() {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) return chromium.launch({ executablePath: chosen, headless: true, args: ARGS });
  const { executablePath, libraryPath } = await npmChromium();
  const inherited = process.env.LD_LIBRARY_PATH;
  const env = { ...process.env, LD_LIBRARY_PATH: inherited ? `${libraryPath}:${inherited}` : libraryPath };
  return chromium.launch({ executablePath, headless: true, args: ARGS, env });
}
