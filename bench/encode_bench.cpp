// JSON and CSV encoding of one 1000-row page shaped like a sysbench row (id INT, k INT, c CHAR(120),
// pad CHAR(60)): the per-row cost the encoder adds to a backfill.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rowpump/encode.hpp"

namespace {

using rowpump::Column;
using rowpump::ColumnKind;

constexpr std::size_t rows_per_page = 1000;

std::vector<Column> sysbench_columns() {
    auto column = [](const char* name, ColumnKind kind) {
        Column c;
        c.name = name;
        c.kind = kind;
        return c;
    };
    return {column("id", ColumnKind::signed_integer), column("k", ColumnKind::signed_integer),
            column("c", ColumnKind::text), column("pad", ColumnKind::text)};
}

// sysbench fills c and pad with groups of 11 digits joined by '-'.
std::string digit_groups(std::mt19937& random, std::size_t length) {
    std::string text;
    while (text.size() < length) {
        if (!text.empty()) text += '-';
        for (int digit = 0; digit < 11; ++digit) text += static_cast<char>('0' + random() % 10);
    }
    text.resize(length);
    return text;
}

rowpump::Page sysbench_page() {
    std::mt19937 random(42);
    rowpump::Page page(4);
    for (std::size_t id = 1; id <= rows_per_page; ++id) {
        page.append(std::to_string(id));
        page.append(std::to_string(random() % 1000000));
        page.append(digit_groups(random, 119));
        page.append(digit_groups(random, 59));
    }
    return page;
}

void encode_page(benchmark::State& state, rowpump::Format format) {
    const rowpump::Page page = sysbench_page();
    const auto encoder = rowpump::make_encoder(format, sysbench_columns());
    std::string out;
    for (auto _ : state) {
        out.clear();
        for (std::size_t row = 0; row < page.row_count(); ++row) {
            encoder->encode(page, row, out);
            out += '\n';
        }
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * page.row_count()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

void BM_EncodeJson(benchmark::State& state) { encode_page(state, rowpump::Format::json); }
void BM_EncodeCsv(benchmark::State& state) { encode_page(state, rowpump::Format::csv); }

}  // namespace

BENCHMARK(BM_EncodeJson);
BENCHMARK(BM_EncodeCsv);

BENCHMARK_MAIN();
