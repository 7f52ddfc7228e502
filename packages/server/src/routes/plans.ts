import { defineRoute, type RouteDef } from '../http/route.js';
import { CreatePlanBody, PageQuery, UpdatePlanBody } from '../http/schemas.js';
import { PlanView, listOf } from '../http/views.js';

/** Plans of a product: list, create, get, update (code and kind are immutable). */
export const planRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/products/{id}/plans', api: 'vendor', tag: 'Plans', summary: "List a product's plans, newest first",
    query: PageQuery, response: listOf(PlanView), errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, query }) => engine.listPlans(accountId, params.id!, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/products/{id}/plans', api: 'vendor', tag: 'Plans', summary: 'Create a plan',
    body: CreatePlanBody, response: PlanView, status: 201, errors: ['invalid_request', 'not_found', 'conflict'],
    handler: ({ engine, accountId, params, body }) => engine.createPlan(accountId, params.id!, body),
  }),
  defineRoute({
    method: 'GET', path: '/v1/plans/{id}', api: 'vendor', tag: 'Plans', summary: 'Get a plan',
    response: PlanView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.getPlan(accountId, params.id!),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/plans/{id}', api: 'vendor', tag: 'Plans', summary: 'Update a plan',
    body: UpdatePlanBody, response: PlanView, errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, body }) => engine.updatePlan(accountId, params.id!, body),
  }),
];
