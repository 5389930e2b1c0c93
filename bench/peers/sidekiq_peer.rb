# What the Ruby peers share (sidekiq_push_bulk.rb, activejob_perform_later.rb): their arguments, the
# Sidekiq client's Redis, and the table read as ActiveRecord's find_in_batches reads it: keyset batches of
# 1000 rows with the mysql2 gem (WHERE id > last ORDER BY id LIMIT 1000). Single process, one connection
# each way.
#
# The MySQL connection comes from the option file in BENCH_MYSQL_OPTION_FILE ([client] host, port, user,
# password) and the database in BENCH_MYSQL_DATABASE; Redis from BENCH_REDIS_URL (its password, if any,
# in BENCH_REDIS_PASSWORD). No password on the command line.
require "mysql2"
require "sidekiq"

module SidekiqPeer
  BATCH_ROWS = 1000

  # TABLE QUEUE JOB_CLASS from ARGV, with the client set up; aborts with the usage of `script`.
  def self.arguments(script)
    table, queue, job_class = ARGV
    abort "usage: #{script} TABLE QUEUE JOB_CLASS" unless job_class
    abort "bad table name: #{table}" unless table.match?(/\A[A-Za-z0-9_]+\z/)
    redis = {url: ENV.fetch("BENCH_REDIS_URL")}
    redis[:password] = ENV["BENCH_REDIS_PASSWORD"] if ENV["BENCH_REDIS_PASSWORD"]
    Sidekiq.configure_client { |config| config.redis = redis }
    [table, queue, job_class]
  end

  # Yields each batch of rows (hashes keyed by column name) in key order; returns how many rows it read.
  def self.each_batch(table)
    mysql = Mysql2::Client.new(default_file: ENV.fetch("BENCH_MYSQL_OPTION_FILE"), default_group: "client",
                               database: ENV.fetch("BENCH_MYSQL_DATABASE"), encoding: "utf8mb4")
    batch = mysql.prepare("SELECT * FROM `#{table}` WHERE id > ? ORDER BY id LIMIT #{BATCH_ROWS}")
    read = 0
    last_id = -(2**63)
    loop do
      rows = batch.execute(last_id).to_a
      break if rows.empty?
      yield rows
      read += rows.size
      last_id = rows.last["id"]
    end
    read
  end
end
