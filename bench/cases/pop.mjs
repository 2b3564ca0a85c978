// `pop` (issue 12): every token request authenticates with a private_key_jwt client assertion and
// carries a DPoP proof, ours against oidc-provider configured for the same; the signing and the
// load live in bench/proof-of-possession.mjs. Two results (oursPop, oidcProviderPop), no table row.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureProofOfPossession, POP_CLIENT_ID, popClientKey } from '../proof-of-possession.mjs';
import { config, inComparisonOrder } from '../lib/settings.mjs';
import { failStart } from '../lib/processes.mjs';
import { summarize } from '../lib/load.mjs';
import { runCli, withOidcProvider, withOurDatabase, withOurServer } from '../lib/servers.mjs';

const POP_SCOPE = 'read';

async function runOursProofOfPossession(alg, key) {
  return withOurDatabase(alg, {}, async ({ env, baseUrl, dataDir }) => {
    const jwksFile = path.join(dataDir, 'bench-client-jwks.json');
    writeFileSync(jwksFile, JSON.stringify(key.jwks));
    const args = [
      'client',
      'create',
      '--client-id',
      POP_CLIENT_ID,
      '--name',
      'Bench PoP',
      '--scopes',
      POP_SCOPE,
      '--auth-method',
      'private_key_jwt',
      '--jwks-file',
      jwksFile,
      '--dpop-bound',
      '--json',
    ];
    const { cli, exit } = await runCli('client create, private_key_jwt', args, alg, env, 'ours-pop-cli');
    if (!exit || exit.code !== 0) throw failStart(cli, 'client create --auth-method private_key_jwt failed');
    return withOurServer({ label: 'pop', logName: 'ours-pop', alg, env, baseUrl }, () =>
      measureProofOfPossession({ name: 'ours, private_key_jwt + DPoP', alg, baseUrl, key, scope: POP_SCOPE, config, summarize }),
    );
  });
}

function runOidcProviderProofOfPossession(alg, key) {
  const env = { CLIENT_SECRET: 'unused-secret', POP_CLIENT_ID, POP_CLIENT_JWKS: JSON.stringify(key.jwks) };
  return withOidcProvider('oidc-provider (pop)', 'oidc-provider-pop', alg, env, (baseUrl) =>
    measureProofOfPossession({ name: 'oidc-provider, private_key_jwt + DPoP', alg, baseUrl, key, scope: POP_SCOPE, config, summarize }),
  );
}

async function runProofOfPossession(alg) {
  const key = await popClientKey();
  const { ours, peer } = await inComparisonOrder(
    () => runOursProofOfPossession(alg, key),
    () => runOidcProviderProofOfPossession(alg, key),
  );
  return { oursPop: ours, oidcProviderPop: peer };
}

export default { name: 'pop', needsBuild: true, run: runProofOfPossession };
