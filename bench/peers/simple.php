<?php
// The simple way to move a table into a Redis list: one buffered SELECT (the whole result is held in
// the client before the first row is used), then one RPUSH per row, i.e. one round trip per row.
// Each row becomes a JSON object keyed by column name; integer columns stay JSON numbers, as in
// rowpump's payloads.
//
//   php bench/peers/simple.php TABLE QUEUE_KEY [ROW_LIMIT]
//
// ROW_LIMIT reads only the first ROW_LIMIT rows by id (this script is slow; see backfill_vs_peers.sh).
// Connections as in connect.php (ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL; passwords are never printed).
// Prints the number of rows pushed.

require __DIR__ . '/connect.php';

[$table, $queue, $limit] = arguments($argv);
$mysql = connect_mysql();
$redis = connect_redis();

try {
    $sql = 'SELECT * FROM ' . $table . ' ORDER BY id' . ($limit > 0 ? " LIMIT $limit" : '');
    $result = $mysql->query($sql);  // buffered (MYSQLI_STORE_RESULT)
    $pushed = 0;
    while (($row = $result->fetch_assoc()) !== null) {
        $redis->rPush($queue, json_encode($row, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR));
        ++$pushed;
    }
    $result->free();
} catch (mysqli_sql_exception | RedisException | JsonException $e) {
    fail(get_class($e) . ': ' . $e->getMessage());
}
echo $pushed, "\n";
