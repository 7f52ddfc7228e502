import type { PlanRecord, ProductRecord } from '@svc-licensing/license-engine';
import type { RowDataPacket } from 'mysql2/promise';
import { quote, tables } from './schema.js';
import type { Run } from './statement.js';

interface DocRow extends RowDataPacket {
  doc: string;
}

/** `SELECT` of the record of `parent` whose ID is in the license's column `column`. */
const byLicense = (parent: 'plans' | 'products', column: string) =>
  `SELECT \`doc\` FROM ${quote(tables[parent].table)} WHERE \`id\` = (SELECT ${quote(column)} FROM ${quote(tables.licenses.table)} WHERE \`id\` = ?)`;
const PLAN = byLicense('plans', tables.licenses.columns.get('planId')!);
const PRODUCT = byLicense('products', tables.licenses.columns.get('productId')!);

/**
 * The port's `readLicenseParents`: two statements asked in one turn, so they join the query of
 * the reads asked with them (the license's own). Each looks the license's plan or product ID up
 * itself; in a unit whose first statement locks the license, the unit's snapshot is taken by a
 * later statement, after that lock, so both name the locked row's plan and product.
 */
export async function readLicenseParents(run: Run, licenseId: string): Promise<{ plan: PlanRecord | null; product: ProductRecord | null }> {
  const [plans, products] = await Promise.all([run<DocRow[]>(PLAN, [licenseId]), run<DocRow[]>(PRODUCT, [licenseId])]);
  const first = <T>(rows: DocRow[]): T | null => (rows[0] ? (JSON.parse(rows[0].doc) as T) : null);
  return { plan: first<PlanRecord>(plans), product: first<ProductRecord>(products) };
}
