import type { CopyTable } from './layout.js';

/** A value as both stores hold it: 64-bit integers as bigint so that none loses a bit. */
export type CopyValue = string | number | bigint | Buffer | null;
export type CopyRow = CopyValue[];

/** Where rows come from: one consistent read snapshot, held from open to close. */
export interface CopySource {
  readonly name: string;
  /** The table's rows in primary key order, a batch at a time (never the whole table at once). */
  rows(table: CopyTable, batch: number): AsyncIterable<CopyRow[]>;
  close(): Promise<void>;
}

/** Where rows go: created empty, filled in one transaction, committed whole or not at all. */
export interface CopyTarget {
  readonly name: string;
  /** Rows per insert batch for this table (PostgreSQL: within its 65535 parameters per statement). */
  batchRows(table: CopyTable): number;
  insert(table: CopyTable, rows: CopyRow[]): Promise<void>;
  /** Everything is in: check, commit. */
  commit(): Promise<void>;
  /** Something failed: leave the target as it was before the copy. */
  abort(): Promise<void>;
}

