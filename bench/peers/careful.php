<?php
// The careful way to move a table into a Redis list: one unbuffered SELECT (MYSQLI_USE_RESULT: rows are
// streamed from the server as they are fetched, so memory does not grow with the table), each row
// JSON-encoded as an object keyed by column name, pushed with one variadic RPUSH per 1000 rows.
// The RPUSHes are not pipelined: each batch waits for its reply (one round trip per 1000 rows), which
// already makes the round trips a small part of the time. Single process, single connection each way.
//
//   php bench/peers/careful.php TABLE QUEUE_KEY [ROW_LIMIT]
//
// Connections as in connect.php (ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL; passwords are never printed).
// Prints the number of rows pushed.

require __DIR__ . '/connect.php';

const BATCH_ROWS = 1000;

[$table, $queue, $limit] = arguments($argv);
$mysql = connect_mysql();
$redis = connect_redis();

try {
    $sql = 'SELECT * FROM ' . $table . ' ORDER BY id' . ($limit > 0 ? " LIMIT $limit" : '');
    $result = $mysql->query($sql, MYSQLI_USE_RESULT);
    $batch = [];
    $pushed = 0;
    while (($row = $result->fetch_assoc()) !== null) {
        $batch[] = json_encode($row, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        if (count($batch) === BATCH_ROWS) {
            $redis->rPush($queue, ...$batch);
            $pushed += count($batch);
            $batch = [];
        }
    }
    $result->free();
    if ($batch) {
        $redis->rPush($queue, ...$batch);
        $pushed += count($batch);
    }
} catch (mysqli_sql_exception | RedisException | JsonException $e) {
    fail(get_class($e) . ': ' . $e->getMessage());
}
echo $pushed, "\n";
