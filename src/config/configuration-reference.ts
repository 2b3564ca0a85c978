import type { Variable } from './variable.js';
import { VARIABLES } from './variables.js';

const INTRODUCTION = `# Configuration reference

<!-- Generated from src/config/variables.ts by \`npm run docs:config\`: edit the declarations there, not here. -->

The server, the CLI and every worker read the same environment variables, validated once at
start. A bad value stops the process with exit code 1 and one line naming the variable (the
values of secrets are never echoed). An empty variable counts as unset. A variable that looks
like one of these but is none of them (it starts like one, such as \`STATUS_LIST_LENGTH\`, or is
within two letters of one, such as \`ACCES_TOKEN_TTL\`) is ignored, and the server says so at
start in one \`warn\` line naming the variable it knows.
`;

const NOTES = `
Two more variables are read, outside this validated set: \`NODE_ENV\` (only \`production\`
matters: it makes \`json\` the default \`LOG_FORMAT\`) and \`NO_COLOR\` (no colours in \`pretty\`
logs). The docker-compose deployment adds its own (\`POSTGRES_PASSWORD\`, \`PUBLIC_PORTS\`,
\`ADMIN_PORTS\`): see [deploying](../operations/deploying.md).
`;

/** docs/reference/configuration.md, as the declarations of src/config/variables.ts describe it. */
export function configurationReference(): string {
  const rows = (Object.entries(VARIABLES) as [string, Variable<unknown>][]).map(([name, variable]) => row(name, variable));
  const table = ['| variable | meaning | accepted values | default |', '|---|---|---|---|', ...rows].join('\n');
  return `${INTRODUCTION}\n${table}\n${NOTES}`;
}

function row(name: string, variable: Variable<unknown>): string {
  const cells = [`\`${name}\``, variable.meaning, variable.accepted, variable.defaultText];
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}
