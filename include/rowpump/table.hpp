#pragma once
// What information_schema says about a table, and the choice of the key to page it by.
#include <optional>
#include <string>
#include <vector>

#include "rowpump/options.hpp"

namespace ROWPUMP_EXPORT rowpump {

// How a column's value is read and encoded.
enum class ColumnKind {
    signed_integer,    // TINYINT..BIGINT
    unsigned_integer,  // ... UNSIGNED
    decimal,           // exact: kept as its text
    floating,          // FLOAT, DOUBLE
    bit,               // BIT(n), read as its integer value
    year,
    date,
    datetime,          // DATETIME, TIMESTAMP
    time,
    text,              // CHAR, VARCHAR, TEXT, ENUM, SET
    binary,            // BINARY, VARBINARY, BLOB, and spatial types (SRID + WKB)
    json,
    other,             // anything unknown: read as text
};

struct Column {
    std::string name;
    std::string column_type;  // as information_schema.COLUMNS.COLUMN_TYPE: "bigint(20) unsigned"
    ColumnKind kind = ColumnKind::other;
    bool nullable = false;
    int numeric_precision = 0;  // DECIMAL(M,D): M
    int numeric_scale = 0;      // DECIMAL(M,D): D
};

struct Index {
    std::string name;
    bool unique = false;
    std::vector<std::string> columns;  // in index order
};

struct TableInfo {
    std::string schema;
    std::string name;
    std::vector<Column> columns;          // in table order
    std::vector<std::string> primary_key; // empty when the table has none
    std::vector<Index> indexes;           // every index, the primary key included (name "PRIMARY")

    const Column* find_column(const std::string& column) const;
    // Throws UsageError naming the table and listing the columns when `column` is not one of them.
    const Column& column(const std::string& column) const;
    // `schema`.`name`, quoted.
    std::string quoted_name() const;
};

// The unique key a table is paged by, and why it was chosen.
struct PagingKey {
    std::vector<std::string> columns;
    std::string reason;  // "primary key", "unique index `u`", "`c` plus the primary key as tie-breaker"
    bool nullable = false;  // some key column admits NULL: those rows need their own pass
    // The index that keeps the key in order ("PRIMARY" or a secondary index that the primary key completes,
    // as InnoDB's do); empty when none does. Page queries name it with FORCE INDEX: an IN list of composite
    // keys once made the optimizer weigh another index at 0.25 s a page, against 0.004 s through this one.
    std::string index;
};

// The given column(s) when they are unique (or made unique by appending the primary key); else the
// primary key; else the smallest unique index on NOT NULL columns. Throws UsageError when none fits.
PagingKey choose_paging_key(const TableInfo& table, const std::vector<std::string>& requested);

// Reads the table's description from information_schema. `table` is "name" (in the connection's
// database) or "schema.name". Throws UsageError when the table does not exist.
TableInfo describe_table(const MySqlOptions& mysql, const std::string& table);

}  // namespace rowpump
