#!/usr/bin/env bash
# Creates the benchmark table: sysbench's sbtest1 with 1,000,000 rows (id INT PK, k INT indexed,
# c CHAR(120), pad CHAR(60)). Idempotent: a table that already holds exactly that many rows is left alone;
# any other sbtest1 is dropped and rebuilt.
#
#   bench/sysbench_table.sh            prepare with `sysbench oltp_read_only`, or with SEQUENCE-engine
#                                      inserts when sysbench is missing or cannot talk to the server
#   bench/sysbench_table.sh --sequence always use the SEQUENCE-engine inserts
#
# Environment: ROWPUMP_MYSQL_URL (mysql://user:pass@host:port/db; eval "$(scripts/services.sh env)"),
# BENCH_TABLE_SIZE (1000000), BENCH_TABLE (sbtest1; any other name is built with the SEQUENCE-engine
# inserts, as sysbench only makes tables named sbtestN). Passwords go through a private option file,
# never the command line.
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
table_size="$(setting BENCH_TABLE_SIZE 1000000 count)"
table="$(setting BENCH_TABLE sbtest1 name)"
force_sequence=false
case "${1:-}" in
  "") ;;
  --sequence) force_sequence=true ;;
  *) echo "usage: $0 [--sequence]" >&2; exit 2 ;;
esac
[[ "$table" == sbtest1 ]] || force_sequence=true

require_env ROWPUMP_MYSQL_URL
make_private_dir rp_bench_table
mysql_connection

existing_rows() {
  local exists
  exists="$(sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '$table'")"
  if [[ "$exists" == 0 ]]; then echo none; else sql "SELECT COUNT(*) FROM $table"; fi
}

prepare_with_sysbench() {
  command -v sysbench >/dev/null 2>&1 || { log "sysbench is not installed"; return 1; }
  local sysbench_config="$private_dir/sysbench.cfg"
  cat >"$sysbench_config" <<EOF
db-driver=mysql
mysql-host=$db_host
mysql-port=$db_port
mysql-user=$db_user
mysql-password=$db_password
mysql-db=$db_name
EOF
  log "sysbench oltp_read_only prepare: $table_size rows (a minute or two)"
  # Script options (tables, table size) are only read from the command line; the config file holds the
  # connection, so the password stays out of `ps`.
  if ! sysbench --config-file="$sysbench_config" oltp_read_only --tables=1 --table-size="$table_size" prepare >"$private_dir/sysbench.log" 2>&1; then
    log "sysbench prepare failed:"
    sed 's/^/  /' "$private_dir/sysbench.log" >&2
    sql "DROP TABLE IF EXISTS sbtest1"
    return 1
  fi
}

# The same schema and value shapes as sysbench: c is ten groups of 11 digits, pad five, k random in [1, n].
prepare_with_sequence() {
  log "creating $table with SEQUENCE-engine inserts: $table_size rows"
  local group="LPAD(FLOOR(RAND() * 100000000000), 11, '0')"
  local c_value="CONCAT_WS('-', $group, $group, $group, $group, $group, $group, $group, $group, $group, $group)"
  local pad_value="CONCAT_WS('-', $group, $group, $group, $group, $group)"
  sql "DROP TABLE IF EXISTS $table;
       CREATE TABLE $table (
         id INTEGER NOT NULL AUTO_INCREMENT,
         k INTEGER DEFAULT '0' NOT NULL,
         c CHAR(120) DEFAULT '' NOT NULL,
         pad CHAR(60) DEFAULT '' NOT NULL,
         PRIMARY KEY (id)
       ) ENGINE = InnoDB;
       INSERT INTO $table (id, k, c, pad)
         SELECT seq, FLOOR(1 + RAND() * $table_size), $c_value, $pad_value FROM seq_1_to_$table_size;
       CREATE INDEX k_1 ON $table (k);
       ANALYZE TABLE $table;" >/dev/null
}

rows="$(existing_rows)"
if [[ "$rows" == "$table_size" ]]; then
  log "$db_name.$table already has $rows rows; nothing to do"
  exit 0
fi
if [[ "$rows" != none ]]; then
  log "$db_name.$table has $rows rows, not $table_size: rebuilding it"
  sql "DROP TABLE $table"
fi

started=$SECONDS
if $force_sequence || ! prepare_with_sysbench; then
  $force_sequence || log "falling back to SEQUENCE-engine inserts"
  prepare_with_sequence
fi

rows="$(existing_rows)"
[[ "$rows" == "$table_size" ]] || { log "$table ended with $rows rows, expected $table_size"; exit 1; }
log "$db_name.$table ready: $rows rows in $((SECONDS - started)) s"
