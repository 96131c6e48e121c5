// The dashboard's tests need dashboard/dist, which `npm ci` builds; a working tree where it is
// missing (a fresh checkout before `npm install`) gets it built once here.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dashboardDir = fileURLToPath(new URL('../../dashboard', import.meta.url));

export function ensureDashboardBuilt(): void {
  if (fs.existsSync(path.join(dashboardDir, 'dist', 'index.html'))) return;
  execFileSync(process.execPath, [path.join(dashboardDir, 'scripts', 'build.mjs')], { cwd: dashboardDir, stdio: 'inherit' });
}
