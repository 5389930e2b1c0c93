# Sidekiq's own way to enqueue a table as jobs: the table read in batches of 1000 (sidekiq_peer.rb), each
# batch enqueued with one Sidekiq::Client.push_bulk, every row a job's one argument (a hash keyed by column
# name).
#
#   ruby bench/peers/sidekiq_push_bulk.rb TABLE QUEUE JOB_CLASS
#
# Connections: sidekiq_peer.rb. Prints the number of jobs pushed.
require_relative "sidekiq_peer"

table, queue, job_class = SidekiqPeer.arguments("sidekiq_push_bulk.rb")
pushed = SidekiqPeer.each_batch(table) do |rows|
  Sidekiq::Client.push_bulk("class" => job_class, "queue" => queue, "args" => rows.map { |row| [row] })
end
puts pushed
