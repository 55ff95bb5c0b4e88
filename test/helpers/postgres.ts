// The throwaway PostgreSQL cluster lives in fixtures/ so that benches (scripts/bench-workers.ts) use it too.
export * from '../../fixtures/postgres.js';
