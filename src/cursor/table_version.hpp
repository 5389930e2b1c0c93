#pragma once
// Whether a table has changed since some moment, for exact positions kept between requests (the jumps'
// counted bookmarks). InnoDB stamps a table's UPDATE_TIME (information_schema.TABLES, whole seconds) when
// a transaction that changed it commits: counts made after a stamp earlier than the server's current
// second still hold while the stamp is unchanged, since any later commit stamps a later second.
//
// The stamp is NULL when the table has not changed since InnoDB loaded its definition (a restart, an
// ALTER), but it would also read NULL again if InnoDB evicted the definition after a change, and the
// server offers no other per-table change count to a plain user: a NULL stamp vouches for nothing, and a
// table unchanged since its definition was loaded gets no kept counts (its exact jumps count from the
// list's start) until its first change.
//
// CREATE_TIME tells a table apart from one of the same name made again (DROP and CREATE, a RENAME swap, an
// ALTER that rebuilds it): bookmarks of the one are never used for the other.
#include <cstdint>
#include <optional>

#include "mysql/connection.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

struct TableVersion {
    std::optional<std::int64_t> changed;  // UPDATE_TIME in Unix seconds; nullopt when NULL
    std::int64_t now = 0;                 // the server's clock, in the same statement
    std::optional<std::int64_t> created;  // CREATE_TIME in Unix seconds; nullopt when NULL

    // Whether a count made from here on can be kept and checked against later versions: the stamp is
    // known and not of this second, which a later commit could stamp again.
    bool vouches() const { return changed && *changed < now; }
    // Nothing committed to the table between the two (when `earlier` vouched).
    bool same_as(const TableVersion& earlier) const { return changed && changed == earlier.changed && same_table(earlier); }
    // The same table, not one made again under its name since (whole seconds: one made again within the
    // second of the other's creation passes).
    bool same_table(const TableVersion& earlier) const { return created == earlier.created; }
};

// One small query of information_schema.TABLES.
TableVersion table_version(mysql::Connection& connection, const TableInfo& table);

}  // namespace rowpump
