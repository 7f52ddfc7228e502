import { defineRoute, type RouteDef } from '../http/route.js';
import { ListEventsQuery } from '../http/schemas.js';
import { EventView, listOf } from '../http/views.js';

/** The audit log. */
export const eventRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/events', api: 'vendor', tag: 'Events', summary:
      'List audit events, newest first, each with its actor (owner, member, API key, operator, customer; null for the service\'s own); ' +
      'filter by license ID or by the kind of actor',
    query: ListEventsQuery, response: listOf(EventView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listEvents(accountId, { ...query, cursor: query.cursor ?? null }),
  }),
];
