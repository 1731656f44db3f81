import { spawn } from 'node:child_process';
import { builtCli } from '../support/built-cli';

/**
 * Runs the CLI (built from the current sources, see `builtCli`) as a child process (in `cwd`,
 * with `stdin` piped in); resolves to its exit code and output.
 */
export async function cli(
  args: string[],
  options: { stdin?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = await builtCli();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.end(options.stdin ?? '');
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
