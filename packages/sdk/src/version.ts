/** The package's version (package.json's; test/sdk/package.test.ts holds them equal), sent in the User-Agent. */
export const VERSION = '0.1.0';
