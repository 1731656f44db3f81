import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from './restore';

const LOCK = 'backend-server.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a data directory for this process (`<dir>/backend-server.lock` holds the pid), so a
 * second server or a data command cannot open the same embedded database at once (which
 * would corrupt it). A lock left by a process that is gone is taken over. Resolves to the
 * function that releases it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new DataError(
          `${dir} is in use by a running backend-server (pid ${pid}${pid === process.pid ? ', this process' : ''}): stop it first`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new DataError(`could not lock ${dir}`);
}
