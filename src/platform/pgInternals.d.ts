// The value conversion pg applies to a query's parameters, which its published type definitions
// leave out (platform/postgresPool.ts, StatementPipeline, binds values as pg.Query does). A module
// of pg's own, reached through its package exports (`./lib/*`); the lockfile pins the version.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): Buffer | string | null };
  export default utils;
}
