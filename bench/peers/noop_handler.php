<?php
// rowpump's side of bench/consumer_vs_peers.sh: a --pipe handler that does nothing with each task.
while (($line = fgets(STDIN)) !== false) {
    json_decode($line, true);
    fwrite(STDOUT, "ok\n");
}
