/** The console's settings from the api (GET /console/config.json): where the Temporal Web UI shows workflows. */
export interface ConsoleConfig {
  temporal_workflows_url: string;
  /** On the `npm start` stack: where its demo API key is. */
  demo_key_hint?: string;
}

let loaded: Promise<ConsoleConfig> | undefined;

/** Read once per page. This is the console's own file, not an API call, so it is a plain fetch. */
export function consoleConfig(): Promise<ConsoleConfig> {
  loaded ??= fetch('/console/config.json').then((res) => {
    if (!res.ok) throw new Error(`console config: HTTP ${res.status}`);
    return res.json() as Promise<ConsoleConfig>;
  });
  return loaded;
}
