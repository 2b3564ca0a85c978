// Sums a V8 CPU profile's self time by layer (passport, Express, Node's HTTP core, signing, ...).
// Usage: node bench/profile-layers.mjs bench/results/profiles/ours-ES256.cpuprofile
import { readFileSync } from 'node:fs';

// First match wins: a function's layer is decided by its script URL and name.
const LAYERS = [
  ['idle', (url, name) => name === '(idle)'],
  ['GC', (url, name) => name === '(garbage collector)'],
  ['program (native, unattributed)', (url, name) => name === '(program)'],
  ['passport', (url) => /node_modules\/(passport|passport-http|passport-strategy|@nestjs\/passport)\//.test(url)],
  [
    'Express + router',
    (url) =>
      /node_modules\/(express|router|finalhandler|send|on-finished|parseurl|path-to-regexp|qs|type-is|content-type|accepts|mime-types|proxy-addr|forwarded|fresh|vary|depd)\//.test(
        url,
      ),
  ],
  ['Nest', (url) => /node_modules\/@nestjs\//.test(url)],
  ['rxjs', (url) => /node_modules\/rxjs\//.test(url)],
  ['TypeORM + pg', (url) => /node_modules\/(typeorm|pg|pg-protocol|pg-pool|pg-types)\//.test(url)],
  ['metrics (prom-client)', (url) => /node_modules\/prom-client\//.test(url)],
  ['logging (pino)', (url) => /node_modules\/(pino|pino-std-serializers|sonic-boom)\//.test(url)],
  ['other dependencies', (url) => /node_modules\//.test(url)],
  ['our code', (url) => /\/dist\/src\//.test(url)],
  ['Node HTTP core + net', (url) => /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net))/.test(url)],
  ['Node crypto', (url) => /^node:(crypto|internal\/crypto)/.test(url)],
  ['Node other', (url) => /^node:/.test(url)],
  ['native (unnamed script)', (url) => url === ''],
  ['other', () => true],
];

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const layers = new Map();
const functions = new Map();
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id);
  const [layer] = LAYERS.find(([, test]) => test(callFrame.url, callFrame.functionName));
  layers.set(layer, (layers.get(layer) ?? 0) + micros);
  const fn = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}:${callFrame.lineNumber + 1}`;
  functions.set(fn, (functions.get(fn) ?? 0) + micros);
}
const busy = [...layers].filter(([name]) => name !== 'idle').reduce((sum, [, micros]) => sum + micros, 0);
console.log(`busy ${(busy / 1e6).toFixed(2)} s of event-loop CPU (idle ${((layers.get('idle') ?? 0) / 1e6).toFixed(2)} s)`);
for (const [name, micros] of [...layers].filter(([n]) => n !== 'idle').sort((a, b) => b[1] - a[1])) {
  console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`);
}
console.log('\ntop functions (self time)');
for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 25))) {
  console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`);
}
