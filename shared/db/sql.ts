// Invariant: the one type of a Postgres handle (the pool, or a transaction's), the postgres.js
// client this code base sets up in database.ts; every module that runs a statement takes one.
import type postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
export type Tx = postgres.TransactionSql<Record<string, never>>;
