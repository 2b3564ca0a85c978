import type { ErrorObject } from '../api/documents.js';

/**
 * The data-source form's own words for the server's refusals, field by field (the server's
 * detail speaks of members and pointers; an administrator reads what to do instead).
 */
export function dataSourceWording(field: string | undefined, error: ErrorObject): string | undefined {
  const status = error.status;
  switch (field) {
    case 'name':
      return 'Give the data source a name people will recognise (at most 255 characters).';
    case 'kind':
      return 'Choose what the data source is: a resource server or an identity provider.';
    case 'resourceUri':
      return status === '409'
        ? 'Another data source already has this resource URI: each data source has its own.'
        : "Type the data source's address as an absolute URI, e.g. https://glucose.example/api (no #fragment).";
    case 'client':
      if (status === '404') return 'This client no longer exists: choose another one.';
      return 'This client is not allowed uma_protection, so it cannot introspect tokens: choose one that is, or enrol a new one here.';
    case 'definitions':
      if (status === '404') return 'A chosen definition no longer exists: remove it from the list.';
      if (status === '409') return 'This data source already serves that definition.';
      return 'Choose the definitions from the picker.';
    case 'newClientId':
      return status === '409'
        ? 'Another client already has this client ID: choose another one.'
        : 'Give the new client an ID of letters, digits, dots, hyphens or underscores.';
    case 'newClientName':
      return 'Give the new client a name (at most 255 characters).';
    default:
      return undefined;
  }
}
