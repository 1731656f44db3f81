import type { RestRequest, Runtime } from '../context';
import { openApiResponse } from '../openapi';
import type { Plan } from '../plan/types';
import { executeRead } from './read';
import { executeCall } from './rpc';
import { executeInsert, executeMutate } from './write';

/** Executes a request's plan: builds its SQL, runs it and shapes the response. */
export function execute(rt: Runtime, req: RestRequest, plan: Plan): Promise<Response> | Response {
  switch (plan.kind) {
    case 'openapi':
      return openApiResponse(rt, req);
    case 'options':
      return new Response(null, { status: 200, headers: { allow: plan.allow } });
    case 'read':
      return executeRead(rt, req, plan);
    case 'insert':
      return executeInsert(rt, req, plan);
    case 'update':
    case 'delete':
      return executeMutate(rt, req, plan);
    case 'call':
      return executeCall(rt, req, plan);
  }
}
