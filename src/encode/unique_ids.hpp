#pragma once
// Ids for the jobs and messages of worker formats: Sidekiq's 24-hex jid, Celery's uuid4 task ids and
// delivery tags. Sidekiq and Celery draw every id at random; a random draw per row would cost more than
// encoding the row. Here two random seeds are drawn once per generator, and each id holds a bijective mix
// of (counter + seed): unique within the generator as long as the counter does not wrap (2^60 ids), apart
// from other generators and processes by their seeds, and no more guessable than a framework's id needs
// to be (ids name jobs, they are not secrets). Thread-safe: one atomic counter.
#include <atomic>
#include <cstdint>
#include <string>

namespace rowpump {

class UniqueIds {
public:
    UniqueIds();  // seeds from std::random_device
    UniqueIds(std::uint64_t seed_a, std::uint64_t seed_b) : seed_a_(seed_a), seed_b_(seed_b) {}

    // 24 lowercase hex digits, like SecureRandom.hex(12).
    void append_jid(std::string& out) const;
    // A version-4 UUID with the RFC 4122 variant, lowercase: "xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx".
    void append_uuid4(std::string& out) const;

private:
    std::uint64_t seed_a_;
    std::uint64_t seed_b_;
    mutable std::atomic<std::uint64_t> counter_{0};
};

}  // namespace rowpump
