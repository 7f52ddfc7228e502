import type { LeaseAnswer } from './seats.js';

/** The `200` answer of `POST /licenses/activate`: `lease` on floating plans only. */
export interface ActivateResult {
  certificate: string;
  activation: string;
  /** Floating plans only (docs/floating-seats.md): the lease the machine now holds. */
  lease?: LeaseAnswer;
  /**
   * The product's revocation list `seq` (docs/rvl1.md, "Telling online clients"; 0 while it has
   * none): an SDK holding an older list, or none, fetches `GET /v1/products/{id}/revocations`.
   */
  revocationListSeq: number;
}

/** The `200` answer of `POST /licenses/validate`. */
export type ValidateResult = Omit<ActivateResult, 'activation'>;
