#pragma once
// What librowpump exports. The library is built with hidden visibility (-fvisibility=hidden
// -fvisibility-inlines-hidden), and every public header opens its namespace as
// `namespace ROWPUMP_EXPORT rowpump`: what include/rowpump declares is visible to a program that links the
// library, and the internal types under src/ (PageSql, RangeBoard, mysql::Connection, ...) are not.
#if defined(__GNUC__) || defined(__clang__)
#define ROWPUMP_EXPORT __attribute__((visibility("default")))
#else
#define ROWPUMP_EXPORT
#endif
