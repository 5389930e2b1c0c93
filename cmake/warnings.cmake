# Warnings as an INTERFACE target, so every target of ours opts in the same way and
# consumers of the installed package do not inherit them.
add_library(rowpump_warnings INTERFACE)
target_compile_options(rowpump_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
  -Wno-sign-conversion $<$<BOOL:${ROWPUMP_WERROR}>:-Werror>)
