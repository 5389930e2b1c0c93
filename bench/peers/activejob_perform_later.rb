# Rails' own way to enqueue a table as ActiveJob jobs on Sidekiq: rows loaded from MariaDB in batches of
# 1000 with the mysql2 gem (keyset, as ActiveRecord's find_in_batches reads them), each row enqueued with
# JOB_CLASS.perform_later(row) through ActiveJob's Sidekiq adapter. ActiveJob 6.1 (Debian's) has no
# ActiveJob.perform_all_later (Rails 7.1+), so this is the loop a Rails 6.1 app writes: one job, one
# Sidekiq::Client.push, one Redis round trip per row. Single process, one connection each way.
#
#   ruby bench/peers/activejob_perform_later.rb TABLE QUEUE JOB_CLASS
#
# Connections as bench/peers/sidekiq_push_bulk.rb's: BENCH_MYSQL_OPTION_FILE, BENCH_MYSQL_DATABASE,
# BENCH_REDIS_URL, BENCH_REDIS_PASSWORD. Prints the number of jobs enqueued.
require "mysql2"
require "time"
require "active_job"
require "sidekiq"

BATCH_ROWS = 1000

table, queue, job_class = ARGV
abort "usage: activejob_perform_later.rb TABLE QUEUE JOB_CLASS" unless job_class
abort "bad table name: #{table}" unless table.match?(/\A[A-Za-z0-9_]+\z/)

redis = {url: ENV.fetch("BENCH_REDIS_URL")}
redis[:password] = ENV["BENCH_REDIS_PASSWORD"] if ENV["BENCH_REDIS_PASSWORD"]
Sidekiq.configure_client { |config| config.redis = redis }
ActiveJob::Base.queue_adapter = :sidekiq
ActiveJob::Base.logger = Logger.new(nil)

# The job class, defined under its constant path, as a Rails app has it.
parts = job_class.split("::")
owner = parts[0..-2].reduce(Object) do |scope, name|
  scope.const_defined?(name, false) ? scope.const_get(name, false) : scope.const_set(name, Module.new)
end
job = owner.const_set(parts.last, Class.new(ActiveJob::Base) { def perform(row); end })

mysql = Mysql2::Client.new(default_file: ENV.fetch("BENCH_MYSQL_OPTION_FILE"), default_group: "client",
                           database: ENV.fetch("BENCH_MYSQL_DATABASE"), encoding: "utf8mb4")
batch = mysql.prepare("SELECT * FROM `#{table}` WHERE id > ? ORDER BY id LIMIT #{BATCH_ROWS}")

enqueued = 0
last_id = -(2**63)
loop do
  rows = batch.execute(last_id).to_a
  break if rows.empty?
  rows.each { |row| job.set(queue: queue).perform_later(row) }
  enqueued += rows.size
  last_id = rows.last["id"]
end
puts enqueued
