#!/usr/bin/env bash
# What a balanced partition plan costs (issue 11): for each table, `rowpump partition --partitions N` is run
# BENCH_RUNS times and timed, with the server's handler counters (SHOW GLOBAL STATUS, Handler_read_*) read
# around each run; then each range of the plan is counted to check that it covers every row once and how
# far the largest range is from the mean, and how far the plan's estimate is from the truth. Prints a
# markdown report to stdout.
#
#   ROWPUMP_BIN=build/rowpump bench/partition_cost.sh > bench/results/partition_cost.md
#
# Tables (made if missing, all named rp_bench_part_*, dropped at the end unless BENCH_KEEP_TABLES=1):
#   skew      5M rows, BIGINT key: 99% of them in the lowest 0.001% of the key's span
#   salaries  2.8M rows, employees-style, PRIMARY KEY (emp_no INT, from_date DATE)
#   names     1M rows, VARCHAR key under utf8mb4_general_ci (case-insensitive)
#   narrow5   5M rows, BIGINT key, one INT column
#   narrow20  20M rows, the same (BENCH_SKIP_20M=1 leaves it out)
# Environment: ROWPUMP_MYSQL_URL, ROWPUMP_BIN (build/rowpump), BENCH_RUNS (3), BENCH_PARTITIONS (32),
# BENCH_MAX_LOAD (2) / BENCH_FORCE (0).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
partitions="$(setting BENCH_PARTITIONS 32 count)"
require_env ROWPUMP_MYSQL_URL
require_rowpump "$rowpump_bin"
make_private_dir rp_bench_partition_cost
mysql_connection
rowpump_password_files
refuse_when_loaded 2

tables=(skew salaries names narrow5)
[[ "${BENCH_SKIP_20M:-0}" == 1 ]] || tables+=(narrow20)
created=()
cleanup() {
  if [[ "${BENCH_KEEP_TABLES:-0}" != 1 ]]; then
    for table in "${created[@]}"; do sql "DROP TABLE IF EXISTS rp_bench_part_$table" || true; done
  fi
  rm -rf "$private_dir"
}
trap cleanup EXIT

table_exists() { [[ -n "$(sql "SHOW TABLES LIKE '$1'")" ]]; }

# make TABLE: creates and fills rp_bench_part_TABLE, then ANALYZE TABLE (fresh statistics, as a table
# that has been in use has).
make() {
  local name="rp_bench_part_$1"
  table_exists "$name" && return 0
  log "creating $name"
  created+=("$1")  # dropped at the end even when filling it fails
  case "$1" in
    skew)
      sql "CREATE TABLE $name (id BIGINT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
           INSERT INTO $name SELECT seq, seq FROM seq_1_to_4950000;
           INSERT INTO $name SELECT 10000000 * seq, seq FROM seq_1_to_50000;" ;;
    salaries)
      sql "CREATE TABLE $name (emp_no INT NOT NULL, from_date DATE NOT NULL, salary INT NOT NULL,
             to_date DATE NOT NULL, PRIMARY KEY (emp_no, from_date)) ENGINE=InnoDB;
           INSERT INTO $name SELECT 10001 + seq DIV 9, DATE '1985-01-01' + INTERVAL seq % 9 YEAR,
             40000 + seq % 50000, DATE '9999-01-01' FROM seq_0_to_2799999;" ;;
    names)
      sql "CREATE TABLE $name (name VARCHAR(48) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, v INT NOT NULL)
             ENGINE=InnoDB;
           INSERT INTO $name SELECT CONCAT(ELT(1 + seq % 4, 'a', 'B', 'é', 'E'), SHA1(seq)), seq FROM seq_1_to_1000000;" ;;
    narrow5) sql "CREATE TABLE $name (id BIGINT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
                  INSERT INTO $name SELECT seq, seq FROM seq_1_to_5000000;" ;;
    narrow20) sql "CREATE TABLE $name (id BIGINT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
                   INSERT INTO $name SELECT seq, seq FROM seq_1_to_20000000;" ;;
  esac
  sql "ANALYZE TABLE $name" >/dev/null
}

handler_reads() {
  sql "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME LIKE 'HANDLER_READ%'"
}

# check_plan TABLE JSON: "rows max/mean estimate/true" from counting each range of the plan.
check_plan() {
  python3 - "$1" "$2" "$client_config" "$db_name" <<'EOF'
import json, subprocess, sys
table, plan_file, config, db = sys.argv[1:5]
plan = json.load(open(plan_file))
columns = {"rp_bench_part_salaries": ["emp_no", "from_date"], "rp_bench_part_names": ["name"]}.get(table, ["id"])
def literal(value):
    return str(value) if isinstance(value, int) else "'" + value.replace("'", "''") + "'"
def count(where):
    sql = "SELECT COUNT(*) FROM %s%s" % (table, " WHERE " + where if where else "")
    return int(subprocess.check_output(["mariadb", "--defaults-extra-file=" + config, "-N", db, "-e", sql]))
# key >= value (or < value), expanded so that the server serves it with a range on the key's index.
def compare(value, op):
    terms = []
    for i in range(len(columns)):
        equal = [ "%s = %s" % (columns[j], literal(value[j])) for j in range(i) ]
        last = op if i == len(columns) - 1 else op[0]
        terms.append("(" + " AND ".join(equal + ["%s %s %s" % (columns[i], last, literal(value[i]))]) + ")")
    return "(" + " OR ".join(terms) + ")"
sizes = []
for part in plan:
    conditions = []
    if part["lo"]: conditions.append(compare(part["lo"], ">="))
    if part["hi"]: conditions.append(compare(part["hi"], "<"))
    sizes.append(count(" AND ".join(conditions)))
total = count("")
estimated = sum(part["estimated_rows"] for part in plan)
print("%d %d %.3f %.3f" % (total, sum(sizes), max(sizes) / (total / len(sizes)), estimated / total))
EOF
}

for table in "${tables[@]}"; do make "$table"; done
log "load $(cut -d' ' -f1 /proc/loadavg); $runs runs of each plan, $partitions partitions"

echo "# What a balanced partition plan costs (issue 11)"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $("$rowpump_bin" --version 2>/dev/null | head -1), repository at $(git -C "$root" rev-parse --short HEAD);"
echo "$(uname -sr), $(nproc) cores; MariaDB $(sql 'SELECT VERSION()'). Produced by \`bench/partition_cost.sh\`."
echo
echo "Load (uptime) before: \`$uptime_before\`."
echo
echo "Each plan is \`rowpump partition --partitions $partitions\` on the table, run $runs times; wall time is the median."
echo "Handler reads are the server's \`Handler_read_*\` counters (global) around one run. Coverage counts each"
echo "range of the plan: \"rows covered\" must equal the table's rows; \"largest / mean\" is the largest range"
echo "over the mean; \"estimate / true\" is the plan's total over the table's rows."
echo
echo "| table | rows | planned from | wall ms (median) | handler reads | reads / rows | rows covered | largest / mean | estimate / true | runs, ms |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for table in "${tables[@]}"; do
  name="rp_bench_part_$table"
  walls=()
  for ((run = 0; run < runs; run++)); do
    before="$(handler_reads)"
    start="$(date +%s%N)"
    "$rowpump_bin" partition --mysql "$mysql_sink" --table "$name" --partitions "$partitions" --json >"$private_dir/plan.json"
    end="$(date +%s%N)"
    after="$(handler_reads)"
    walls+=($(((end - start) / 1000000)))
    reads=$((after - before))
  done
  method="$("$rowpump_bin" partition --mysql "$mysql_sink" --table "$name" --partitions "$partitions" | tail -n1 |
            sed -e 's/^planned in [0-9]* ms from //' -e 's/;.*//')"
  read -r total covered largest estimate <<<"$(check_plan "$name" "$private_dir/plan.json")"
  median_wall="$(printf '%s\n' "${walls[@]}" | median)"
  share="$(awk -v r="$reads" -v t="$total" 'BEGIN { printf "%.4f%%", 100 * r / t }')"
  echo "| \`$name\` | $total | $method | $median_wall | $reads | $share | $covered | $largest | $estimate | $(printf '%s\n' "${walls[@]}" | paste -sd' ' | sed 's/ /, /g') |"
  log "$name: ${median_wall} ms, $reads handler reads, largest/mean $largest"
done
echo
echo "Load (uptime) after: \`$(uptime_line)\`."
