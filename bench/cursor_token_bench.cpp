// Cursor tokens: encode (pack, HMAC-SHA256, base64url) and verify (decode, HMAC, constant-time compare,
// unpack) for a bigint sort and a (DATETIME, BIGINT) sort. The goal of issue 31: under 5 us each.
#include <benchmark/benchmark.h>

#include "cursor/cursor_token.hpp"

namespace {

using rowpump::Column;
using rowpump::ColumnKind;
using rowpump::CursorKeys;
using rowpump::TokenContent;
using rowpump::TokenSigner;

Column column(const char* name, ColumnKind kind) {
    Column c;
    c.name = name;
    c.kind = kind;
    return c;
}

TokenSigner signer(bool composite) {
    std::vector<Column> columns{column("id", ColumnKind::signed_integer)};
    if (composite) columns.insert(columns.begin(), column("created_at", ColumnKind::datetime));
    return TokenSigner(CursorKeys{std::string(64, 'k'), std::string(64, 'p')}, std::string(32, 'f'), columns);
}

TokenContent content(bool composite) {
    TokenContent c{TokenContent::Edge::end, 500'000, {std::int64_t{10'000'000}}};
    if (composite) c.values.insert(c.values.begin(), std::string("2024-06-30 12:34:56"));
    return c;
}

void encode(benchmark::State& state) {
    const bool composite = state.range(0) != 0;
    const TokenSigner s = signer(composite);
    const TokenContent c = content(composite);
    for (auto _ : state) benchmark::DoNotOptimize(s.encode(c));
}

void verify(benchmark::State& state) {
    const bool composite = state.range(0) != 0;
    const TokenSigner s = signer(composite);
    const std::string token = s.encode(content(composite));
    for (auto _ : state) benchmark::DoNotOptimize(s.decode(token));
}

}  // namespace

BENCHMARK(encode)->Arg(0)->Arg(1)->ArgName("composite");
BENCHMARK(verify)->Arg(0)->Arg(1)->ArgName("composite");
BENCHMARK_MAIN();
