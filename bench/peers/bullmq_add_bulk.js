// BullMQ's own way to enqueue a table as jobs: rows loaded from MariaDB in pages of 1000 with the mysql2
// package (keyset: WHERE id > last ORDER BY id LIMIT 1000, as rowpump pages by key), each page added with
// one Queue.addBulk, every row a job named JOB_NAME whose data is the row (an object keyed by column name),
// default job options. Single process, one connection each way.
//
//   node bench/peers/bullmq_add_bulk.js TABLE QUEUE JOB_NAME
//
// Run from anywhere: bullmq and mysql2 come from tests/workers/bullmq/node_modules (its package-lock.json,
// npm ci by scripts/setup.sh). The MySQL connection comes from the option file in BENCH_MYSQL_OPTION_FILE
// ([client] host, port, user, password) and the database in BENCH_MYSQL_DATABASE; Redis from BENCH_REDIS_URL
// (its password, if any, in BENCH_REDIS_PASSWORD); BENCH_BULLMQ_PREFIX is BullMQ's prefix (bull). No password
// on the command line. Prints the number of jobs added.
'use strict';
const fs = require('fs');
const path = require('path');

const modules = path.join(__dirname, '..', '..', 'tests', 'workers', 'bullmq', 'node_modules');
const { Queue } = require(path.join(modules, 'bullmq'));
const IORedis = require(path.join(modules, 'ioredis'));
const mysql = require(path.join(modules, 'mysql2', 'promise'));

const PAGE_ROWS = 1000;

async function main() {
  const [table, queueName, jobName] = process.argv.slice(2);
  if (!jobName) throw new Error('usage: bullmq_add_bulk.js TABLE QUEUE JOB_NAME');
  if (!/^[A-Za-z0-9_]+$/.test(table)) throw new Error(`bad table name: ${table}`);

  const client = {};
  for (const line of fs.readFileSync(process.env.BENCH_MYSQL_OPTION_FILE, 'utf8').split('\n')) {
    const match = /^([a-z_-]+)=(.*)$/.exec(line.trim());
    if (match) client[match[1]] = match[2];
  }
  const db = await mysql.createConnection({
    host: client.host, port: Number(client.port || 3306), user: client.user, password: client.password,
    database: process.env.BENCH_MYSQL_DATABASE, charset: 'utf8mb4', supportBigNumbers: true,
  });
  const redisOptions = { maxRetriesPerRequest: null };
  if (process.env.BENCH_REDIS_PASSWORD) redisOptions.password = process.env.BENCH_REDIS_PASSWORD;
  const connection = new IORedis(process.env.BENCH_REDIS_URL, redisOptions);
  const queue = new Queue(queueName, { connection, prefix: process.env.BENCH_BULLMQ_PREFIX || 'bull' });

  let added = 0;
  let lastId = -Number.MAX_SAFE_INTEGER;
  for (;;) {
    const [rows] = await db.execute(`SELECT * FROM \`${table}\` WHERE id > ? ORDER BY id LIMIT ${PAGE_ROWS}`, [lastId]);
    if (rows.length === 0) break;
    await queue.addBulk(rows.map((row) => ({ name: jobName, data: row })));
    added += rows.length;
    lastId = rows[rows.length - 1].id;
  }
  console.log(added);
  await queue.close();
  connection.disconnect();
  await db.end();
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
