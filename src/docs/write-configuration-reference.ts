import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configurationReference, undocumentedVariables } from '../config/configuration-reference.js';

// npm run docs:config: rewrites docs/reference/configuration.md from the validated configuration class.
const target = resolve(process.argv[2] ?? 'docs/reference/configuration.md');
writeFileSync(target, configurationReference());
console.log(`wrote ${target}`);
for (const problem of undocumentedVariables()) console.error(`warning: ${problem}`);
