# Sidekiq's own way to enqueue a table as jobs: rows loaded from MariaDB in batches of 1000 with the
# mysql2 gem, as ActiveRecord's find_in_batches reads them (keyset: WHERE id > last ORDER BY id
# LIMIT 1000), each batch enqueued with one Sidekiq::Client.push_bulk, every row a job's one argument
# (a hash keyed by column name). Single process, one connection each way.
#
#   ruby bench/peers/sidekiq_push_bulk.rb TABLE QUEUE JOB_CLASS
#
# The MySQL connection comes from the option file in BENCH_MYSQL_OPTION_FILE ([client] host, port, user,
# password) and the database in BENCH_MYSQL_DATABASE; Redis from BENCH_REDIS_URL (its password, if any,
# in BENCH_REDIS_PASSWORD). No password on the command line. Prints the number of jobs pushed.
require "mysql2"
require "sidekiq"

BATCH_ROWS = 1000

table, queue, job_class = ARGV
abort "usage: sidekiq_push_bulk.rb TABLE QUEUE JOB_CLASS" unless job_class
abort "bad table name: #{table}" unless table.match?(/\A[A-Za-z0-9_]+\z/)

redis = {url: ENV.fetch("BENCH_REDIS_URL")}
redis[:password] = ENV["BENCH_REDIS_PASSWORD"] if ENV["BENCH_REDIS_PASSWORD"]
Sidekiq.configure_client { |config| config.redis = redis }
mysql = Mysql2::Client.new(default_file: ENV.fetch("BENCH_MYSQL_OPTION_FILE"), default_group: "client",
                           database: ENV.fetch("BENCH_MYSQL_DATABASE"), encoding: "utf8mb4")
batch = mysql.prepare("SELECT * FROM `#{table}` WHERE id > ? ORDER BY id LIMIT #{BATCH_ROWS}")

pushed = 0
last_id = -(2**63)
loop do
  rows = batch.execute(last_id).to_a
  break if rows.empty?
  Sidekiq::Client.push_bulk("class" => job_class, "queue" => queue, "args" => rows.map { |row| [row] })
  pushed += rows.size
  last_id = rows.last["id"]
end
puts pushed
