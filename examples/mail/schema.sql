-- The mail scenario's tables (examples/mail/README.md): the emails to send, and one row per email sent.
-- MySQL 8.0+ or MariaDB 10.2+.  mariadb DATABASE < examples/mail/schema.sql

CREATE TABLE sys_email_log (
  email_id  BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  recipient VARCHAR(255) NOT NULL,
  subject   VARCHAR(255) NOT NULL,
  body      TEXT NOT NULL
);

-- What send_mail.php did: one row per send. No unique key on purpose, so a mail sent twice (a handler
-- that died after sending and before answering) can be counted. connection_id shows reconnections.
CREATE TABLE sys_email_sent (
  email_id      BIGINT UNSIGNED NOT NULL,
  sent_at       DATETIME(6) NOT NULL,
  handler_pid   INT UNSIGNED NOT NULL,
  connection_id BIGINT UNSIGNED NOT NULL,
  KEY (email_id)
);

-- 3000 emails, ids 1..3000 (60 x 50: each recursion under MySQL's default depth limit of 1000).
INSERT INTO sys_email_log (email_id, recipient, subject, body)
WITH RECURSIVE a (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM a WHERE i < 59),
               b (j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM b WHERE j < 49)
SELECT 1 + i * 50 + j, CONCAT('user', 1 + i * 50 + j, '@example.com'), CONCAT('Order ', 1 + i * 50 + j, ' has shipped'),
       CONCAT('Hello, your order ', 1 + i * 50 + j, ' is on its way.')
FROM a CROSS JOIN b;
