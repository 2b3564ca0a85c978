import { readFileSync } from 'node:fs';
import { JwksError, validateJwks } from '../clients/client-jwks.js';
import { ConfigurationError } from '../config/configuration-error.js';

/**
 * DCR_SOFTWARE_STATEMENT_JWKS_FILE, read once when the registration service starts: the public keys of the publishers whose
 * software statements dynamic registration accepts (docs/guides/dynamic-registration.md#software-statements).
 * Held to the rules of a client's key set; anything else stops the start with one line naming the variable.
 */
export function loadSoftwareStatementKeys(file: string | undefined): { keys: Record<string, unknown>[] } | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`DCR_SOFTWARE_STATEMENT_JWKS_FILE cannot be read (${file}: ${(error as { code?: string }).code ?? 'an error'})`);
  }
  try {
    return validateJwks(text);
  } catch (error) {
    if (error instanceof JwksError) throw new ConfigurationError(`DCR_SOFTWARE_STATEMENT_JWKS_FILE (${file}): ${error.message}`);
    throw error;
  }
}
