// Launcher child: the Temporal dev server. Options arrive as JSON in argv[2].
import { runGuarded } from './guarded-child.ts';
import { startTemporalDevServer, type DevServerOptions } from './temporal-dev-server.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as DevServerOptions;

runGuarded('temporal', async () => {
  const running = await startTemporalDevServer(options);
  return { info: { address: running.address, uiUrl: running.uiUrl }, stop: running.stop };
});
