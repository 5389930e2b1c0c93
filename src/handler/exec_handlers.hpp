#pragma once
// `queue consume --exec CMD` and `--exec-batch N`: a new process per task, or per batch of tasks. They
// suit shell pipelines and slow tasks; a start costs about a millisecond, so fast tasks want --pipe.
#include <string>
#include <vector>

#include "rowpump/consumer.hpp"

namespace rowpump::handler {

// Runs `command` with the task's payload on its stdin and ROWPUMP_QUEUE, ROWPUMP_TASK_ATTEMPT and (MySQL)
// ROWPUMP_TASK_ID in its environment. Exit status 0 acknowledges the task; anything else fails it with the
// status and the end of its stderr. A command that cannot be started stops the run (ConsumerHalt).
TaskResult run_exec(const std::string& command, const TaskContext& task);

// Runs `command` once for the batch, with one task line each on its stdin (handler/task_lines.hpp) and
// ROWPUMP_QUEUE and ROWPUMP_BATCH_SIZE in its environment. Its exit status acknowledges (0) or fails them
// all.
std::vector<TaskResult> run_exec_batch(const std::string& command, const std::vector<TaskContext>& tasks);

}  // namespace rowpump::handler
