-- The quick start's sample table: 300000 orders made by MariaDB's SEQUENCE engine in one statement.
-- The notes carry quotes, a backslash, accents, CJK and a 4-byte emoji, so encoders meet real text.
DROP TABLE IF EXISTS sample_orders;
CREATE TABLE sample_orders (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id INT NOT NULL,
  status VARCHAR(16),
  amount DECIMAL(12,2),
  note VARCHAR(200),
  created_at DATETIME(6),
  KEY idx_customer (customer_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO sample_orders (id, customer_id, status, amount, note, created_at)
SELECT seq,
       1 + (seq * 7919) % 50000,
       ELT(1 + seq % 5, 'new', 'paid', 'shipped', 'delivered', 'cancelled'),
       ((seq * 104729) % 1000000) / 100,
       CASE seq % 6
         WHEN 0 THEN NULL
         WHEN 1 THEN CONCAT('order ', seq)
         WHEN 2 THEN CONCAT('Zoë''s "rush" order #', seq, ' — café crème')
         WHEN 3 THEN CONCAT('注文 ', seq, ' 🚚 deliver to O''Brien')
         WHEN 4 THEN CONCAT('path C:\\orders\\', seq, ', tab\there')
         ELSE CONCAT('naïve façade ', seq, ' « quoted » ✓')
       END,
       TIMESTAMP'2024-01-01 00:00:00' + INTERVAL (seq * 86400123) MICROSECOND
FROM seq_1_to_300000;
