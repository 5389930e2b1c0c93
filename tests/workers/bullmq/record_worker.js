// A real BullMQ Worker for rowpump's tests: it processes every job of the queue RP_QUEUE (keys under
// RP_PREFIX, default "bull") on RP_REDIS_URL and records each run, RPUSHed to the Redis list RP_RECORD_KEY
// as JSON: the job's id, name, data, timestamp and delay as BullMQ read them, and when it ran (Unix ms).
// It prints "ready" once the Worker is connected, and stops cleanly on SIGTERM.
'use strict';
const { Worker } = require('bullmq');
const IORedis = require('ioredis');

const url = process.env.RP_REDIS_URL;
const queue = process.env.RP_QUEUE;
const recordKey = process.env.RP_RECORD_KEY;
if (!url || !queue || !recordKey) {
  console.error('record_worker.js: set RP_REDIS_URL, RP_QUEUE and RP_RECORD_KEY');
  process.exit(2);
}
const connection = new IORedis(url, { maxRetriesPerRequest: null });
const recorder = new IORedis(url);

const worker = new Worker(
  queue,
  async (job) => {
    const ran = Date.now();
    await recorder.rpush(recordKey, JSON.stringify({
      id: job.id, name: job.name, data: job.data, timestamp: job.timestamp, delay: job.delay, opts: job.opts, ran,
    }));
  },
  { connection, prefix: process.env.RP_PREFIX || 'bull', concurrency: Number(process.env.RP_CONCURRENCY || 8) },
);
worker.on('failed', (job, error) => console.error(`job ${job && job.id} failed: ${error.message}`));
worker.on('error', (error) => console.error(`worker error: ${error.message}`));

worker.waitUntilReady().then(() => console.log('ready'));

const stop = async () => {
  await worker.close();
  recorder.disconnect();
  connection.disconnect();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
