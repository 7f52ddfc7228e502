import type { PlanRecord, ProductRecord } from '@svc-licensing/license-engine';
import type { RowDataPacket } from 'mysql2/promise';
import { POSITION_COLUMNS, joinPosition, withPosition } from './product-revocations.js';
import type { PositionColumns } from './product-revocations.js';
import { quote, tables } from './schema.js';
import type { Run } from './statement.js';

interface DocRow extends RowDataPacket, PositionColumns {
  doc: string;
}

/** The ID in the license's column `column`, as a subquery. */
const ofLicense = (column: string) => `(SELECT ${quote(column)} FROM ${quote(tables.licenses.table)} WHERE \`id\` = ?)`;
const PLAN = `SELECT \`doc\` FROM ${quote(tables.plans.table)} WHERE \`id\` = ${ofLicense(tables.licenses.columns.get('planId')!)}`;
/** The product with its list position (product-revocations.ts). */
const PRODUCT =
  `SELECT \`p\`.\`doc\`, ${POSITION_COLUMNS} FROM ${quote(tables.products.table)} \`p\` ${joinPosition('p')} ` +
  `WHERE \`p\`.\`id\` = ${ofLicense(tables.licenses.columns.get('productId')!)}`;

/**
 * The port's `readLicenseParents`: two statements asked in one turn, so they join the query of
 * the reads asked with them (the license's own). Each looks the license's plan or product ID up
 * itself; in a unit whose first statement locks the license, the unit's snapshot is taken by a
 * later statement, after that lock, so both name the locked row's plan and product.
 */
export async function readLicenseParents(run: Run, licenseId: string): Promise<{ plan: PlanRecord | null; product: ProductRecord | null }> {
  const [plans, products] = await Promise.all([run<DocRow[]>(PLAN, [licenseId]), run<DocRow[]>(PRODUCT, [licenseId])]);
  const first = <T>(rows: DocRow[]): T | null => (rows[0] ? (JSON.parse(rows[0].doc) as T) : null);
  const product = first<ProductRecord>(products);
  return { plan: first<PlanRecord>(plans), product: product && withPosition(product, products[0]!) };
}
