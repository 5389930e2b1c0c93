<?php
// A PHP consumer of JSON rows: json_decode each task of the list argv[2] and print its fields d and big
// as PHP sees them (var_export: a float shows its lost digits, a string is quoted).
$redis = new Redis();
$redis->connect('127.0.0.1', (int)$argv[1]);
while (($payload = $redis->lPop($argv[2])) !== false) {
    $row = json_decode($payload, true);
    echo var_export($row['d'], true), ' ', var_export($row['big'], true), "\n";
}
