# Rails' own way to enqueue a table as ActiveJob jobs on Sidekiq: the table read in batches of 1000
# (sidekiq_peer.rb), each row enqueued with JOB_CLASS.perform_later(row) through ActiveJob's Sidekiq
# adapter. ActiveJob 6.1 (Debian's) has no ActiveJob.perform_all_later (Rails 7.1+), so this is the loop a
# Rails 6.1 app writes: one job, one Sidekiq::Client.push, one Redis round trip per row.
#
#   ruby bench/peers/activejob_perform_later.rb TABLE QUEUE JOB_CLASS
#
# Connections: sidekiq_peer.rb. Prints the number of jobs enqueued.
require "time"
require "active_job"
require_relative "sidekiq_peer"

table, queue, job_class = SidekiqPeer.arguments("activejob_perform_later.rb")
ActiveJob::Base.queue_adapter = :sidekiq
ActiveJob::Base.logger = Logger.new(nil)

# The job class, defined under its constant path, as a Rails app has it.
parts = job_class.split("::")
owner = parts[0..-2].reduce(Object) do |scope, name|
  scope.const_defined?(name, false) ? scope.const_get(name, false) : scope.const_set(name, Module.new)
end
job = owner.const_set(parts.last, Class.new(ActiveJob::Base) { def perform(row); end })

enqueued = SidekiqPeer.each_batch(table) do |rows|
  rows.each { |row| job.set(queue: queue).perform_later(row) }
end
puts enqueued
