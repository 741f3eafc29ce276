import { render } from 'preact';
import { restoreSession } from './api';
import { App } from './app';

restoreSession();
render(<App />, document.getElementById('app')!);
