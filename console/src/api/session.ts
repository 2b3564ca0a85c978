// The admin token lives in this tab's sessionStorage only (docs/guides/console.md#signing-in): never in a URL, a cookie
// or localStorage, and gone when the tab closes or the administrator signs out.
const KEY = 'adminToken';

export function storedToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
