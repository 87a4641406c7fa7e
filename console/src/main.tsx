/** Entry point of the web console (served by the api at /console). */
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
