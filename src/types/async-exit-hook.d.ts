declare module 'async-exit-hook' {
  type ExitHook = ((done?: () => void) => void) & { unhookEvent(event: string): void };
  const exitHook: ExitHook;
  export default exitHook;
}
