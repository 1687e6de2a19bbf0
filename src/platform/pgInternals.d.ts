// The value conversion pg applies to a query's parameters, which its published type definitions
// leave out. GatewayClient (platform/postgresPool.ts) converts a pipeline's values with it before
// queuing any of its statements: in pipeline mode pg writes each query as it is queued, so a value
// it could not convert would fail that statement alone after the ones before it had left. A module
// of pg's own, reached through its package exports (`./lib/*`); package.json pins the version and
// test/platform/pgContract.test.ts what the gateway relies on.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): Buffer | string | null };
  export default utils;
}
