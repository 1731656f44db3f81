import { join } from 'node:path';
import type { ServiceModule } from '../service-module';
import { createBackend } from './backends/index';
import { DiskStore } from './backends/storage-dir';
import type { StorageContext } from './context';
import { storageRoutes } from './http/router';
import { collectRetired } from './objects';
import { createRenderer, type Renderer } from './render/render';
import { RenderCache } from './render/render-cache';
import { S3_KEYS_SQL } from './s3/keys';
import { S3_SQL } from './s3/schema';
import { STORAGE_SQL } from './schema';
import { seedBuckets } from './seed-buckets';
import { createTus } from './tus/tus';

/**
 * Storage under /storage/v1, as the hosted storage API: buckets, objects (bytes in the storage directory or an S3 bucket,
 * metadata in `storage.objects`, access by RLS), signed URLs, and tus resumable uploads at
 * /storage/v1/upload/resumable. No gateway key-auth: storage verifies the JWT itself.
 */
export const storageService: ServiceModule = {
  name: 'storage',
  basePath: '/storage/v1',
  platformSql: STORAGE_SQL + S3_SQL + S3_KEYS_SQL,
  keyAuth: false,
  async create(ctx) {
    const { config, db } = ctx;
    const disk = new DiskStore(config.storageDir);
    await disk.init();
    const objects = createBackend(disk, config.storage.s3);
    await objects.init();
    // Startup sweep: bytes no row references, temp files, dead tus uploads.
    await collectRetired(db, objects);
    // Object versions, and the parts of S3 multipart uploads (files of the store too).
    const { rows } = await db.query<{ version: string }>(
      `select version from storage.objects where version is not null
       union all select version from storage.s3_multipart_uploads_parts`,
    );
    const referenced = new Set(rows.map((r) => r.version));
    const swept = await objects.sweep(referenced);
    if (swept > 0) ctx.log(`storage: swept ${swept} orphan files`);
    // The configured buckets (config.toml's [storage.buckets.*]) and their objects_path files.
    const seeded = await seedBuckets(
      db,
      objects,
      config.storage.buckets,
      config.storage.fileSizeLimit,
    );
    if (seeded > 0) ctx.log(`storage: uploaded ${seeded} files of the configured buckets`);
    const images = config.storage.imageTransformation;
    let render: Renderer | null = null;
    if (images.enabled) {
      // Rendered variants live beside the objects; every removed version takes its own along.
      const cache = new RenderCache(join(config.storageDir, 'render'), images.cacheBytes);
      await cache.init(referenced);
      objects.onRemove = (version) => cache.dropVersion(version);
      render = createRenderer(cache, images);
    }
    const s: StorageContext = {
      db,
      disk,
      objects,
      secret: config.jwtSecret,
      keys: config.signingKeys,
      globalLimit: config.storage.fileSizeLimit,
      signedUploadExpiry: config.storage.signedUploadExpiry,
      render,
    };
    const tus = await createTus(s, config.storage.uploadExpiry * 1000);
    // Dead tus uploads (not those another replica is writing, tus-sweep.ts).
    const sweptTus = await tus.sweep().catch(async (error: unknown) => {
      await tus.close();
      throw error;
    });
    if (sweptTus > 0) ctx.log(`storage: swept ${sweptTus} stale uploads`);
    // Rows deleted or replaced by app SQL (not through storage) free their bytes too.
    const collector = setInterval(() => {
      collectRetired(db, objects).catch((error: unknown) =>
        ctx.log(`storage: collect failed: ${String(error)}`),
      );
    }, 60_000);
    collector.unref();
    return {
      routes: storageRoutes(s, tus, config.trustedProxies, {
        s,
        settings: { ...config.storage.s3Protocol, anonKey: config.anonKey, now: Date.now },
      }),
      close: async () => {
        clearInterval(collector);
        await tus.close();
      },
    };
  },
};
