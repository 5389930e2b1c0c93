<?php
// The documents' id consumer, unchanged but for where the servers and the table are: each task is a bare
// id that goes straight into the query. Prints "<id> <name>" per task until the list is empty.
// argv: redis port, mysql host, mysql port, user, database, table; the password is in ROWPUMP_MYSQL_PASSWORD.
$redis = new Redis();
$redis->connect('127.0.0.1', (int)$argv[1]);
$db = new mysqli($argv[2], $argv[4], getenv('ROWPUMP_MYSQL_PASSWORD'), $argv[5], (int)$argv[3]);
$table = $argv[6];
while (($payload = $redis->lPop('goods:ids')) !== false) {
    $row = $db->query("SELECT name FROM $table WHERE id = $payload")->fetch_assoc();
    echo $payload, ' ', $row['name'], "\n";
}
