// A payload the MySQL queue's server cannot take (max_allowed_packet) is refused before anything of its
// batch is sent, and the error names the row: its place in the page and the page's last key. The server's
// own error ("Parameter of prepared statement ... is longer than 'max_allowed_packet'") named neither.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/mysql_queue/mysql_queue_insert.hpp"
#include "rowpump/error.hpp"
#include "run/page_pipeline.hpp"

namespace rowpump {
namespace {

std::vector<Message> messages_of_sizes(const std::vector<std::size_t>& sizes) {
    std::vector<Message> batch;
    for (std::size_t size : sizes) batch.push_back(Message{std::string(size, 'x')});
    return batch;
}

TEST(PayloadSizeTest, APayloadThatFitsTheServersPacketPasses) {
    EXPECT_NO_THROW(mysql::check_payload_sizes(messages_of_sizes({10, 60'000, 30}), 64 * 1024));
}

TEST(PayloadSizeTest, TheFirstPayloadTooLargeForThePacketIsNamedByItsPlace) {
    try {
        mysql::check_payload_sizes(messages_of_sizes({10, 70'000, 80'000}), 64 * 1024);
        FAIL() << "no PayloadTooLarge";
    } catch (const PayloadTooLarge& error) {
        EXPECT_EQ(error.index(), 1u);
        const std::string message = error.what();
        EXPECT_NE(message.find("70000 bytes"), std::string::npos) << message;
        EXPECT_NE(message.find("max_allowed_packet (65536 bytes)"), std::string::npos) << message;
        EXPECT_NE(message.find("--columns"), std::string::npos) << message;
        EXPECT_FALSE(error.is_transient());
    }
}

TEST(PayloadSizeTest, ThePipelineSaysWhichRowOfWhichPageItWas) {
    EncodedPage page;
    page.messages = messages_of_sizes({1, 2, 3, 4});
    page.last_key = KeyValue{std::int64_t{4711}};
    try {
        throw_naming_the_row(PayloadTooLarge("a payload of 2 bytes is larger", 2), page);
    } catch (const PayloadTooLarge& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("row 3 of 4 in the page that ends at key (4711)"), std::string::npos) << message;
        EXPECT_NE(message.find("a payload of 2 bytes is larger"), std::string::npos) << message;
        EXPECT_EQ(error.index(), 2u);
    }
}

}  // namespace
}  // namespace rowpump
