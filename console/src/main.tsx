import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app')!;
// The static "Loading…" line is replaced, not kept beside the application.
root.replaceChildren();
render(<App />, root);
