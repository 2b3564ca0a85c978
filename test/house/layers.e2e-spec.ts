import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// CONTRIBUTING.md states the layers of src/; this holds the code to them.
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** The words of each line of a CONTRIBUTING.md block, the one marked `<!-- marker: … -->`. */
function statedBlock(marker: string): string[][] {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const block = new RegExp(`<!-- ${marker}:[^>]*-->\\s*\`\`\`text\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!block) throw new Error(`CONTRIBUTING.md has no ${marker} block`);
  return block[1]
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
}

/** Folder (`tokens/`) or root file (`main.ts`) → its layer, from CONTRIBUTING.md's block. */
function statedLayers(): Map<string, number> {
  return new Map(statedBlock('layers').flatMap(([number, ...rooms]) => rooms.map((room): [string, number] => [room, Number(number)])));
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

/** Table → the folder that owns it (the only one that writes it), from CONTRIBUTING.md's tables block. */
function statedOwners(): Map<string, string> {
  return new Map(statedBlock('tables').flatMap(([room, ...tables]) => tables.map((table): [string, string] => [table, room])));
}

/** Every table the migrations leave behind: created, and not dropped by a later migration. */
function migratedTables(): string[] {
  const folder = join(SRC, 'database/migrations');
  const text = readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => readFileSync(join(folder, name), 'utf8').split(/\basync down\b/)[0])
    .join('\n');
  const tables = new Set<string>();
  for (const [, verb, table] of text.matchAll(/\b(CREATE|DROP) TABLE (?:IF (?:NOT )?EXISTS )?"?(\w+)"?/gi)) {
    if (verb.toUpperCase() === 'CREATE') tables.add(table);
    else tables.delete(table);
  }
  return [...tables].sort();
}

/**
 * Every write of a table in the source, as [writing room, table, where]: SQL (`INSERT INTO`,
 * `UPDATE`, `DELETE FROM`, `TRUNCATE`, with a file's string constants such as `${TABLE}` filled
 * in) and TypeORM's writes of an entity class (`manager.insert(SigningKey, …)`).
 */
function writes(): [string, string, string][] {
  const entityTables = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    const entity = /@Entity\(\{\s*name:\s*'(\w+)'[^)]*\)\s*(?:@[^\n]*\n\s*)*export class (\w+)/.exec(readFileSync(file, 'utf8'));
    if (entity) entityTables.set(entity[2], entity[1]);
  }
  const tables = new Set([...statedOwners().keys(), ...migratedTables()]);
  return sourceFiles(SRC)
    .filter((file) => !file.includes('/database/migrations/'))
    .flatMap((file) => {
      let text = readFileSync(file, 'utf8');
      for (const [, name, value] of text.matchAll(/\bconst (\w+) = '(\w+)';/g)) text = text.replaceAll(`\${${name}}`, value);
      const sql = [...text.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM|TRUNCATE(?: TABLE)?)\s+"?(\w+)"?/g)]
        .map(([, table]) => table)
        .filter((table) => tables.has(table));
      const orm = [...text.matchAll(/\.(?:insert|update|delete|save|remove|upsert|softDelete|increment|decrement)\(\s*(\w+)\s*,/g)]
        .map(([, entity]) => entityTables.get(entity))
        .filter((table): table is string => table !== undefined);
      return [...sql, ...orm].map((table): [string, string, string] => [roomOf(file), table, relative(ROOT, file)]);
    });
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

  it('name an owner for every table the migrations create, and no other table', () => {
    expect([...statedOwners().keys()].sort()).toEqual(migratedTables());
  });

  it('hold: every table is written only by the folder that owns it', () => {
    const owners = statedOwners();
    const foreign = writes()
      .filter(([room, table]) => owners.get(table) !== room)
      .map(([room, table, where]) => `${where} writes ${table} (owned by ${owners.get(table)}, written from ${room})`);
    expect([...new Set(foreign)]).toEqual([]);
  });

  it('name every folder of test/ and what it holds, and no folder that does not exist', () => {
    const named = statedBlock('test folders').map(([folder]) => folder);
    const TEST = join(ROOT, 'test');
    const folders = readdirSync(TEST).filter((name) => statSync(join(TEST, name)).isDirectory());
    expect(named.sort()).toEqual(folders.map((name) => `${name}/`).sort());
  });
});
