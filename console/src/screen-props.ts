import type { ApiClient } from './api/api-client.js';

/** What a screen gets: the API, and what the URL says after its path (`#/audit/412`: "412"). */
export type ScreenProps = { api: ApiClient; param?: string };
