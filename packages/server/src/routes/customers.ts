import { defineRoute, type RouteDef } from '../http/route.js';
import { ListCustomersQuery } from '../http/schemas.js';
import { CustomerDetailView, CustomerView, listOf } from '../http/views.js';

/** Customers: list with `email` and `q` filters, and detail with their licenses. */
export const customerRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/customers', api: 'vendor', tag: 'Customers',
    summary: 'List customers with licenseCount, newest first; filter by email (exact) or q (part of email or name)',
    query: ListCustomersQuery, response: listOf(CustomerView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listCustomers(accountId, { ...query, cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'GET', path: '/v1/customers/{id}', api: 'vendor', tag: 'Customers', summary: 'Get a customer with their licenses',
    response: CustomerDetailView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.getCustomer(accountId, params.id!),
  }),
];
