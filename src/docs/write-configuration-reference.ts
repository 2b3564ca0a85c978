import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configurationReference } from '../config/configuration-reference.js';

// npm run docs:config: rewrites docs/reference/configuration.md from the declarations of src/config/variables.ts.
const target = resolve(process.argv[2] ?? 'docs/reference/configuration.md');
writeFileSync(target, configurationReference());
console.log(`wrote ${target}`);
