import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// CONTRIBUTING.md states the layers of src/; this holds the code to them.
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** Folder (`tokens/`) or root file (`main.ts`) → its layer, from CONTRIBUTING.md's block. */
function statedLayers(): Map<string, number> {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const block = /<!-- layers:[^>]*-->\s*```text\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('CONTRIBUTING.md has no layers block');
  const layers = new Map<string, number>();
  for (const line of block[1].trim().split('\n')) {
    const [number, ...rooms] = line.trim().split(/\s+/);
    for (const room of rooms) layers.set(room, Number(number));
  }
  return layers;
}

/** The room of a file under src/: its top folder (`tokens/`), or the file itself when it sits directly in src/. */
function roomOf(file: string): string {
  const parts = relative(SRC, file.replace(/\.js$/, '.ts')).split('/');
  return parts.length === 1 ? parts[0] : `${parts[0]}/`;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every relative import of the source files, as [importing room, imported room, where]. */
function imports(): [string, string, string][] {
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/g)].map(([, target]): [string, string, string] => [
      roomOf(file),
      roomOf(resolve(dirname(file), target)),
      `${relative(ROOT, file)} → ${target}`,
    ]),
  );
}

describe("CONTRIBUTING.md's layers of src/", () => {
  it('name every folder and every file directly under src/', () => {
    const layers = statedLayers();
    const rooms = readdirSync(SRC)
      .filter((name) => !name.endsWith('.spec.ts'))
      .map((name) => (statSync(join(SRC, name)).isDirectory() ? `${name}/` : name));
    expect(rooms.filter((room) => !layers.has(room))).toEqual([]);
  });

  it('name nothing that does not exist', () => {
    expect([...statedLayers().keys()].filter((room) => !statSync(join(SRC, room), { throwIfNoEntry: false }))).toEqual([]);
  });

  it('hold: every import runs to a lower layer, or stays in its own folder', () => {
    const layers = statedLayers();
    const upward = imports()
      .filter(([from, to]) => from !== to && !(layers.get(to)! < layers.get(from)!))
      .map(([from, to, where]) => `${where} (${from} ${layers.get(from)} → ${to} ${layers.get(to)})`);
    expect(upward).toEqual([]);
  });
});
