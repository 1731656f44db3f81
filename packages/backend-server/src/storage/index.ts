import type { ServiceModule } from '../service';
import type { StorageContext } from './context';
import { DiskStore } from './disk';
import { collectRetired } from './objects';
import { storageRoutes } from './router';
import { STORAGE_SQL } from './schema';
import { createTus, sweepTus } from './tus';

/**
 * Storage under /storage/v1, as the hosted storage API: buckets, objects (bytes on disk,
 * metadata in `storage.objects`, access by RLS), signed URLs, and tus resumable uploads at
 * /storage/v1/upload/resumable. No gateway key-auth: storage verifies the JWT itself.
 */
export const storageService: ServiceModule = {
  name: 'storage',
  basePath: '/storage/v1',
  platformSql: STORAGE_SQL,
  keyAuth: false,
  async create(ctx) {
    const { config, db } = ctx;
    const disk = new DiskStore(config.storageDir);
    await disk.init();
    // Startup sweep: bytes no row references, temp files, dead tus uploads.
    await collectRetired(db, disk);
    const { rows } = await db.query<{ version: string }>(
      'select version from storage.objects where version is not null',
    );
    const swept = await disk.sweep(new Set(rows.map((r) => r.version)));
    const sweptTus = await sweepTus(disk.tus, config.storage.uploadExpiry * 1000);
    if (swept + sweptTus > 0)
      ctx.log(`storage: swept ${swept} orphan files, ${sweptTus} stale uploads`);
    const s: StorageContext = {
      db,
      disk,
      secret: config.jwtSecret,
      keys: config.signingKeys,
      globalLimit: config.storage.fileSizeLimit,
      signedUploadExpiry: config.storage.signedUploadExpiry,
    };
    const tus = createTus(s, config.storage.uploadExpiry * 1000);
    // Rows deleted or replaced by app SQL (not through storage) free their bytes too.
    const collector = setInterval(() => {
      collectRetired(db, disk).catch((error: unknown) =>
        ctx.log(`storage: collect failed: ${String(error)}`),
      );
    }, 60_000);
    collector.unref();
    return {
      routes: storageRoutes(s, tus),
      close: async () => {
        clearInterval(collector);
        tus.close();
      },
    };
  },
};
