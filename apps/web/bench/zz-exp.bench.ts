import { fileURLToPath } from 'node:url';
import { signUpNewUser, startStack } from '../e2e/stack';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = here('../.artifacts/inputs/bench-256.bin');
export default async function bench() {
  const stack = await startStack();
  try {
    const page = await (await stack.newContext()).newPage();
    await signUpNewUser(page, stack, 'Bench');
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.id = 'bench-input';
      input.hidden = true;
      document.body.append(input);
    });
    await page.locator('#bench-input').setInputFiles(file);
    const { url } = stack.server;
    const key = stack.server.serviceRoleKey;
    await fetch(url + '/storage/v1/bucket', {
      method: 'POST',
      headers: { apikey: key, authorization: 'Bearer ' + key, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'b', name: 'b' }),
    });
    const modes = (process.env.MODES ?? 'p1,p3,p1,p3,p1,p3').split(',');
    for (const mode of modes) {
      const ms = await page.evaluate(
        async ({ url, key, mode, size }) => {
          const h = { apikey: key, authorization: 'Bearer ' + key, 'tus-resumable': '1.0.0' };
          const f = (document.getElementById('bench-input') as HTMLInputElement).files![0]!;
          const chunk = 6 * 1024 * 1024;
          const n = Number(mode.slice(1));
          const t = performance.now();
          const per = Math.ceil(size / chunk / n) * chunk;
          await Promise.all(
            Array.from({ length: n }, async (_, i) => {
              const from = i * per;
              const to = Math.min(size, from + per);
              const meta = `bucketName ${btoa('b')},objectName ${btoa('tus' + Math.random())}`;
              const c = await fetch(url + '/storage/v1/upload/resumable', {
                method: 'POST',
                headers: { ...h, 'upload-length': String(to - from), 'upload-metadata': meta },
              });
              const loc = c.headers.get('location')!;
              for (let off = from; off < to; off += chunk) {
                const res = await fetch(loc, {
                  method: 'PATCH',
                  headers: {
                    ...h,
                    'upload-offset': String(off - from),
                    'content-type': 'application/offset+octet-stream',
                  },
                  body: f.slice(off, Math.min(to, off + chunk)),
                });
                if (res.status !== 204) throw new Error(res.status + (await res.text()));
              }
            }),
          );
          return performance.now() - t;
        },
        { url, key, mode, size: SIZE },
      );
      console.log(mode, Math.round(ms));
    }
  } finally {
    await stack.stop();
  }
}
