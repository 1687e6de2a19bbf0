// The value conversion pg applies to a query's parameters, which its published type definitions
// leave out (platform/postgresPool.ts, StatementPipeline, binds values as pg.Query does).
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): Buffer | string | null };
  export default utils;
}
