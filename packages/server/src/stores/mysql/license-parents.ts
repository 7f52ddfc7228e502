import type { PlanRecord, ProductRecord } from '@svc-licensing/license-engine';
import type { RowDataPacket } from 'mysql2/promise';
import { POSITION_COLUMNS, joinPosition, withPosition } from './product-revocations.js';
import type { PositionColumns } from './product-revocations.js';
import { quote, tables } from './schema.js';
import type { Run } from './statement.js';

interface ParentsRow extends RowDataPacket, PositionColumns {
  plan: string | null;
  product: string | null;
}

const column = (field: string) => `\`l\`.${quote(tables.licenses.columns.get(field)!)}`;
/**
 * The license's plan and product, the product with its list position (product-revocations.ts), in
 * one statement: the license's row found by its ID, its parents by their keys (every lookup a
 * primary key). No row when the license is missing; a parent's columns NULL when it is.
 */
const PARENTS =
  `SELECT \`pl\`.\`doc\` AS \`plan\`, \`p\`.\`doc\` AS \`product\`, ${POSITION_COLUMNS} FROM ${quote(tables.licenses.table)} \`l\` ` +
  `LEFT JOIN ${quote(tables.plans.table)} \`pl\` ON \`pl\`.\`id\` = ${column('planId')} ` +
  `LEFT JOIN ${quote(tables.products.table)} \`p\` ON \`p\`.\`id\` = ${column('productId')} ${joinPosition('p')} ` +
  'WHERE `l`.`id` = ?';

/**
 * The port's `readLicenseParents`: one statement (not one per parent, each of which the server
 * parses, opens and runs apart) asked in the turn of the reads asked with it, so it joins the
 * query of the license's own. In a unit whose first statement locks the license, the unit's
 * snapshot is taken by a later statement, after that lock, so it names the locked row's plan and
 * product.
 */
export async function readLicenseParents(run: Run, licenseId: string): Promise<{ plan: PlanRecord | null; product: ProductRecord | null }> {
  const row = (await run<ParentsRow[]>(PARENTS, [licenseId]))[0];
  const plan = row?.plan ? (JSON.parse(row.plan) as PlanRecord) : null;
  const product = row?.product ? (JSON.parse(row.product) as ProductRecord) : null;
  return { plan, product: product && withPosition(product, row!) };
}
