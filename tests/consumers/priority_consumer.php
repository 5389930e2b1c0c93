<?php
// The documents' priority consumer, unchanged but for where Redis is: pops the highest list first and
// prints "<list> <payload>" per task, until the lists stay empty for a second.
$redis = new Redis();
$redis->connect('127.0.0.1', (int)$argv[1]);
while (true) {
    $task = $redis->blPop(['goods:high:task', 'goods:mid:task', 'goods:low:task'], 1);
    if (empty($task)) break;
    echo $task[0], ' ', $task[1], "\n";
}
