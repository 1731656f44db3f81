export { loadSchemaCache } from './schema/load';
export { restService } from './service';
