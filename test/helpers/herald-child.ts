import { join } from 'node:path';
import { startHerald, type HeraldProcess } from '../../bench/load/herald-process.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Herald as in production, in a child process a test can kill without any graceful path (SIGKILL its pid). */
export function startHeraldChild(env: Record<string, string>): Promise<HeraldProcess> {
  return startHerald({ cwd: ROOT, env });
}
