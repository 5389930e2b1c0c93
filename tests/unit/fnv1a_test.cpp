// The fingerprints are stored (a job's definition) and logged (a consumer's tasks): their values must not
// change. The expected values are FNV-1a's published test vectors.
#include <gtest/gtest.h>

#include "fnv1a.hpp"

namespace rowpump {
namespace {

TEST(Fnv1aTest, ThirtyTwoBitsMatchTheReferenceVectors) {
    EXPECT_EQ(fnv1a_32_hex(""), "811c9dc5");
    EXPECT_EQ(fnv1a_32_hex("a"), "e40c292c");
    EXPECT_EQ(fnv1a_32_hex("foobar"), "bf9cf968");
}

TEST(Fnv1aTest, SixtyFourBitsMatchTheReferenceVectors) {
    EXPECT_EQ(fnv1a_64_hex(""), "cbf29ce484222325");
    EXPECT_EQ(fnv1a_64_hex("a"), "af63dc4c8601ec8c");
    EXPECT_EQ(fnv1a_64_hex("foobar"), "85944171f73967e8");
}

}  // namespace
}  // namespace rowpump
