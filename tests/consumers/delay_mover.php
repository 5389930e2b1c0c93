<?php
// The documents' delay mover, unchanged but for where Redis is: the first member of goods:delay moves to
// goods:task once its score is <= time() (seconds). Stops when the set is empty, or after argv[2] seconds.
// Prints how many it moved.
$redis = new Redis();
$redis->connect('127.0.0.1', (int)$argv[1]);
$deadline = time() + (int)$argv[2];
$moved = 0;
while (time() <= $deadline) {
    $first = $redis->zRange('goods:delay', 0, 0, true);
    if (empty($first)) break;
    $task = array_key_first($first);
    if ($first[$task] > time()) {
        usleep(100000);
        continue;
    }
    if ($redis->zRem('goods:delay', $task)) {
        $redis->rPush('goods:task', $task);
        $moved++;
    }
}
echo $moved, "\n";
