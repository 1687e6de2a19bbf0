import Fastify from 'fastify';

/** The HTTP ceiling of this machine: the smallest Fastify app, in its own process like the gateway. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

await app.listen({ port: Number(process.env.PORT ?? 3001), host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
