#include "crypto/hmac.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rowpump/error.hpp"

namespace rowpump::crypto {

Digest sha256(std::string_view data) {
    Digest out{};
    unsigned int length = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &length, EVP_sha256(), nullptr) != 1 || length != out.size())
        throw Error("SHA-256 failed in OpenSSL");
    return out;
}

Digest hmac_sha256(std::string_view key, std::string_view data) {
    Digest out{};
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
              data.size(), out.data(), &length) ||
        length != out.size())
        throw Error("HMAC-SHA256 failed in OpenSSL");
    return out;
}

bool equal_in_constant_time(const std::uint8_t* a, const std::uint8_t* b, std::size_t size) {
    return CRYPTO_memcmp(a, b, size) == 0;
}

}  // namespace rowpump::crypto
