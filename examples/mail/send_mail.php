<?php
// Sends the emails whose ids come from the queue: `rowpump queue consume --pipe 'php send_mail.php'`.
// One task a line on stdin, one answer a line on stdout (docs/consumers.md); logs go to stderr. The
// handler lives for many tasks, so its MySQL connection does too: when the server drops it (a restart,
// wait_timeout, KILL), the handler reconnects and tries the email once more; if that fails too, the
// task comes back to the queue a second later. Settings come from the environment, never argv.
ini_set('display_errors', 'stderr');  // a PHP warning on stdout would be read as the task's answer
const LOST_CONNECTION = [2006, 2013, 1927];  // gone away, lost during a query, killed
$log = getenv('MAIL_LOG_TABLE') ?: 'sys_email_log';
$sent = getenv('MAIL_SENT_TABLE') ?: 'sys_email_sent';
$delay_us = 1000 * (int) getenv('MAIL_SEND_DELAY_MS');  // what a real send would take

$connect = fn () => new PDO(getenv('MAIL_DB_DSN'), getenv('MAIL_DB_USER'), getenv('MAIL_DB_PASSWORD'),
                            [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
$send = function (PDO $db, int $email_id) use ($log, $sent, $delay_us): string {
    $find = $db->prepare("SELECT recipient, subject, body FROM $log WHERE email_id = ?");
    $find->execute([$email_id]);
    if (!$find->fetch(PDO::FETCH_ASSOC)) return "dead no email $email_id in $log";
    usleep($delay_us);  // here the mail would go out
    $db->prepare("INSERT INTO $sent (email_id, sent_at, handler_pid, connection_id)
                  VALUES (?, NOW(6), ?, CONNECTION_ID())")->execute([$email_id, getmypid()]);
    return 'ok';
};

$db = $connect();
while (($line = fgets(STDIN)) !== false) {
    $email_id = (int) json_decode($line, true)['payload'];  // the template '{email_id}' wrote a bare id
    try {
        try {
            $answer = $send($db, $email_id);
        } catch (PDOException $error) {
            if (!in_array($error->errorInfo[1] ?? null, LOST_CONNECTION, true)) throw $error;
            $db = $connect();
            fwrite(STDERR, 'send_mail.php ' . getmypid() . ": reconnected to MySQL\n");
            $answer = $send($db, $email_id);
        }
    } catch (PDOException $error) {
        $answer = 'retry 1 db ' . str_replace("\n", ' ', $error->getMessage());
    }
    fwrite(STDOUT, "$answer\n");
}
