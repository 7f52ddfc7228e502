import { defineRoute, type RouteDef } from '../http/route.js';
import { CreateProductBody, PageQuery, UpdateProductBody } from '../http/schemas.js';
import { ProductView, listOf } from '../http/views.js';

/** Products: list, create (also creates signing key `k1`), get, update. */
export const productRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/products', api: 'vendor', tag: 'Products', summary: 'List products, newest first',
    query: PageQuery, response: listOf(ProductView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listProducts(accountId, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/products', api: 'vendor', tag: 'Products', summary: 'Create a product and its first signing key k1',
    body: CreateProductBody, response: ProductView, status: 201, errors: ['invalid_request', 'plan_limit'],
    handler: ({ engine, accountId, body }) => engine.createProduct(accountId, body),
  }),
  defineRoute({
    method: 'GET', path: '/v1/products/{id}', api: 'vendor', tag: 'Products', summary: 'Get a product',
    response: ProductView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.getProduct(accountId, params.id!),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/products/{id}', api: 'vendor', tag: 'Products', summary: 'Update a product',
    body: UpdateProductBody, response: ProductView, errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, body }) => engine.updateProduct(accountId, params.id!, body),
  }),
];
