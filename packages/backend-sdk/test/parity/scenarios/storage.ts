/**
 * Storage scenarios: buckets (service role), uploads of each body type with options,
 * download, info, exists, list, move, copy, remove, signed URLs, signed uploads, public URLs
 * and errors. Each side works in its own bucket (`parity-<side>`, open to signed-in users).
 */
import type { Any, Ctx, Scenario } from '../scenario';

const service = { key: 'service' } as const;
const bucket = (c: Any, ctx: Ctx) => c.storage.from(`parity-${ctx.tag}`);
const put = async (c: Any, ctx: Ctx, path: string, body: unknown = 'hello parity') => {
  const { error } = await bucket(c, ctx).upload(path, body, {
    upsert: true,
    contentType: 'text/plain',
  });
  if (error) throw error;
};

export const storageScenarios: Scenario[] = [
  {
    id: 'storage.bucket.create',
    client: service,
    run: (c, ctx) =>
      c.storage.createBucket(ctx.u('made'), {
        public: true,
        fileSizeLimit: 1024,
        allowedMimeTypes: ['image/png', 'text/plain'],
      }),
  },
  {
    id: 'storage.bucket.get',
    client: service,
    run: (c, ctx) => c.storage.getBucket(ctx.u('made')),
  },
  {
    id: 'storage.bucket.update',
    client: service,
    run: (c, ctx) => c.storage.updateBucket(ctx.u('made'), { public: false, fileSizeLimit: '2MB' }),
  },
  {
    id: 'storage.bucket.list',
    client: service,
    run: async (c) => {
      const r = await c.storage.listBuckets();
      // Both sides' buckets are there; compare the shape and the side's own entry.
      return { error: r.error, made: r.data?.filter((b: Any) => /^made-z/.test(b.name)) };
    },
  },
  {
    id: 'storage.bucket.empty',
    client: service,
    setup: async (c, ctx) => {
      await c.storage.from(ctx.u('made')).upload('x.txt', 'x', { contentType: 'text/plain' });
    },
    run: (c, ctx) => c.storage.emptyBucket(ctx.u('made')),
  },
  {
    id: 'storage.bucket.delete',
    client: service,
    run: (c, ctx) => c.storage.deleteBucket(ctx.u('made')),
  },
  {
    id: 'storage.bucket.get-missing',
    client: service,
    run: (c) => c.storage.getBucket('no-such-bucket'),
  },
  // uploads
  {
    id: 'storage.upload.string',
    run: (c, ctx) =>
      bucket(c, ctx).upload('string.txt', 'hello parity', { contentType: 'text/plain' }),
  },
  {
    id: 'storage.upload.blob-options',
    run: (c, ctx) =>
      bucket(c, ctx).upload('blob.json', new Blob(['{"a":1}'], { type: 'application/json' }), {
        cacheControl: '120',
        upsert: true,
        metadata: { owner: 'parity' },
      }),
  },
  {
    id: 'storage.upload.array-buffer',
    run: (c, ctx) =>
      bucket(c, ctx).upload('buffer.bin', new Uint8Array([1, 2, 3, 250]).buffer, {
        contentType: 'application/octet-stream',
      }),
  },
  {
    id: 'storage.upload.typed-array',
    run: (c, ctx) => bucket(c, ctx).upload('typed.bin', new Uint8Array([9, 8, 7])),
  },
  {
    id: 'storage.upload.file',
    run: (c, ctx) =>
      bucket(c, ctx).upload(
        'file.txt',
        new File(['file body'], 'file.txt', { type: 'text/plain' }),
      ),
  },
  {
    id: 'storage.upload.form-data',
    run: (c, ctx) => {
      const form = new FormData();
      form.append('', new Blob(['form body'], { type: 'text/plain' }), 'form.txt');
      return bucket(c, ctx).upload('form.txt', form);
    },
  },
  {
    id: 'storage.upload.duplicate',
    setup: (c, ctx) => put(c, ctx, 'dup.txt'),
    run: (c, ctx) => bucket(c, ctx).upload('dup.txt', 'again', { contentType: 'text/plain' }),
  },
  {
    id: 'storage.update',
    setup: (c, ctx) => put(c, ctx, 'upd.txt'),
    run: (c, ctx) => bucket(c, ctx).update('upd.txt', 'updated', { contentType: 'text/plain' }),
  },
  // reading
  {
    id: 'storage.download',
    setup: (c, ctx) => put(c, ctx, 'dl.txt'),
    run: (c, ctx) => bucket(c, ctx).download('dl.txt'),
  },
  {
    id: 'storage.download-missing',
    run: (c, ctx) => bucket(c, ctx).download('missing.txt'),
  },
  {
    id: 'storage.info',
    setup: (c, ctx) => put(c, ctx, 'info.txt'),
    run: (c, ctx) => bucket(c, ctx).info('info.txt'),
  },
  {
    id: 'storage.exists',
    setup: (c, ctx) => put(c, ctx, 'there.txt'),
    run: async (c, ctx) => ({
      there: await bucket(c, ctx).exists('there.txt'),
      missing: await bucket(c, ctx).exists('not-there.txt'),
    }),
  },
  {
    id: 'storage.list',
    setup: async (c, ctx) => {
      await put(c, ctx, 'dir/b.txt');
      await put(c, ctx, 'dir/a.txt');
      await put(c, ctx, 'dir/sub/c.txt');
    },
    run: (c, ctx) =>
      bucket(c, ctx).list('dir', {
        limit: 10,
        offset: 0,
        sortBy: { column: 'name', order: 'desc' },
      }),
  },
  {
    id: 'storage.list-search',
    setup: (c, ctx) => put(c, ctx, 'find/needle.txt'),
    run: (c, ctx) => bucket(c, ctx).list('find', { search: 'need' }),
  },
  {
    id: 'storage.list-v2',
    setup: async (c, ctx) => {
      await put(c, ctx, 'v2/one.txt');
      await put(c, ctx, 'v2/two/three.txt');
    },
    run: (c, ctx) => bucket(c, ctx).listV2({ prefix: 'v2/', limit: 10 }),
  },
  // changing
  {
    id: 'storage.move',
    setup: (c, ctx) => put(c, ctx, 'from.txt'),
    run: (c, ctx) => bucket(c, ctx).move('from.txt', 'to.txt'),
  },
  {
    id: 'storage.copy',
    setup: (c, ctx) => put(c, ctx, 'orig.txt'),
    run: (c, ctx) => bucket(c, ctx).copy('orig.txt', 'copy.txt'),
  },
  {
    id: 'storage.remove',
    setup: async (c, ctx) => {
      await put(c, ctx, 'rm1.txt');
      await put(c, ctx, 'rm2.txt');
    },
    run: (c, ctx) => bucket(c, ctx).remove(['rm1.txt', 'rm2.txt', 'never.txt']),
  },
  // URLs
  {
    id: 'storage.signed-url',
    setup: (c, ctx) => put(c, ctx, 'signed.txt'),
    run: async (c, ctx) => {
      const r = await bucket(c, ctx).createSignedUrl('signed.txt', 60);
      const fetched = r.data ? await (await fetch(r.data.signedUrl)).text() : null;
      return { r, fetched };
    },
  },
  {
    id: 'storage.signed-url-download',
    setup: (c, ctx) => put(c, ctx, 'signed-dl.txt'),
    run: (c, ctx) => bucket(c, ctx).createSignedUrl('signed-dl.txt', 60, { download: 'named.txt' }),
  },
  {
    id: 'storage.signed-urls',
    setup: async (c, ctx) => {
      await put(c, ctx, 's1.txt');
      await put(c, ctx, 's2.txt');
    },
    run: (c, ctx) => bucket(c, ctx).createSignedUrls(['s1.txt', 's2.txt', 'nope.txt'], 60),
  },
  {
    id: 'storage.signed-upload',
    run: async (c, ctx) => {
      const signed = await bucket(c, ctx).createSignedUploadUrl('signed-up.txt');
      const uploaded = await bucket(c, ctx).uploadToSignedUrl(
        'signed-up.txt',
        signed.data.token,
        'via signed url',
        { contentType: 'text/plain' },
      );
      return { signed, uploaded };
    },
  },
  {
    id: 'storage.public-url',
    run: async (c, ctx) => ({
      plain: bucket(c, ctx).getPublicUrl('dir/a b.txt'),
      download: bucket(c, ctx).getPublicUrl('a.txt', { download: true }),
      named: bucket(c, ctx).getPublicUrl('a.txt', { download: 'b.txt' }),
    }),
  },
];
