<?php
// A persistent handler for `rowpump queue consume --pipe 'php handler.php'` (docs/consumers.md):
// one JSON task per line on stdin, one result per line on stdout, in order. Log to stderr, never stdout.
function handle(array $task): string
{
    $payload = $task['payload'];  // the task as the producer wrote it: here a row of the table
    if ($payload === null) {
        return 'dead the payload is empty';
    }
    return 'ok';
}

while (($line = fgets(STDIN)) !== false) {
    try {
        $answer = handle(json_decode($line, true, 512, JSON_THROW_ON_ERROR));
    } catch (Throwable $error) {  // one task failing is not the handler failing
        $answer = 'fail ' . str_replace("\n", ' ', $error->getMessage());
    }
    fwrite(STDOUT, $answer . "\n");
}
