import { authService } from './auth/index';
import { consoleService } from './console/index';
import { functionsService } from './functions/index';
import { devMailService } from './mail/index';
import { realtimeService } from './realtime/index';
import { restService } from './rest/index';
import type { ServiceModule } from './service-module';
import { storageService } from './storage/index';

/**
 * Every service of the server, in mount order. Each lives in its own folder and owns its
 * protocol; this list is the only place that names them all.
 */
export const SERVICES: readonly ServiceModule[] = [
  authService,
  restService,
  devMailService,
  functionsService,
  realtimeService,
  storageService,
  consoleService,
];
