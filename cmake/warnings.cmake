# Warnings as an INTERFACE target, so every target of ours opts in the same way and
# consumers of the installed package do not inherit them.
add_library(rowpump_warnings INTERFACE)
target_compile_options(rowpump_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
  -Wno-sign-conversion
  # GCC 12 reports false positives inside std::variant and std::optional of strings.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized> $<$<BOOL:${ROWPUMP_WERROR}>:-Werror>)
