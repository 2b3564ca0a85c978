import { VARIABLES, validatedVariables } from './env.validation.js';
import type { DescribedVariable } from './variable-description.js';

const INTRODUCTION = `# Configuration reference

<!-- Generated from src/config/env.validation.ts by \`npm run docs:config\`: edit the descriptions there, not here. -->

The server, the CLI and every worker read the same environment variables, validated once at
start. A bad value stops the process with exit code 1 and one line naming the variable (the
values of secrets are never echoed). An empty variable counts as unset.
`;

const NOTES = `
Two more variables are read, outside this validated set: \`NODE_ENV\` (only \`production\`
matters: it makes \`json\` the default \`LOG_FORMAT\`) and \`NO_COLOR\` (no colours in \`pretty\`
logs). The docker-compose deployment adds its own (\`POSTGRES_PASSWORD\`, \`PUBLIC_PORTS\`,
\`ADMIN_PORTS\`): see [deploying](../operations/deploying.md).
`;

/** docs/reference/configuration.md, as the validated configuration class describes it. */
export function configurationReference(): string {
  const rows = validatedVariables().map(row);
  const table = ['| variable | meaning | accepted values | default |', '|---|---|---|---|', ...rows].join('\n');
  return `${INTRODUCTION}\n${table}\n${NOTES}`;
}

/** Variables the configuration class validates but that has no description, or that loadConfig never reads. */
export function undocumentedVariables(): string[] {
  const validated = validatedVariables();
  const missing = validated.filter((variable) => !variable.description).map((variable) => `${variable.name}: no @Describe`);
  const unread = validated.filter((variable) => !VARIABLES.includes(variable.name)).map((variable) => `${variable.name}: not in VARIABLES`);
  const unvalidated = VARIABLES.filter((name) => !validated.some((variable) => variable.name === name)).map(
    (name) => `${name}: not in the configuration class`,
  );
  return [...missing, ...unread, ...unvalidated];
}

function row(variable: DescribedVariable): string {
  const cells = [
    `\`${variable.name}\``,
    variable.description?.meaning ?? '(undocumented)',
    variable.accepted,
    variable.description?.default ?? '(undocumented)',
  ];
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}
