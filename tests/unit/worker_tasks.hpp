#pragma once
// What the worker-format tests share: a Sidekiq and a Celery task spec of the same invoice job, and a
// base64 decoder to read a Celery body back (the library encodes only; a test reads with its own code).
#include <string>

#include "rowpump/encode.hpp"

namespace rowpump::test {

inline TaskSpec sidekiq_task() {
    TaskSpec task;
    task.job_class = "Billing::InvoiceJob";
    task.queue = "invoices";
    return task;
}

inline TaskSpec celery_task() {
    TaskSpec task;
    task.task = "billing.tasks.invoice";
    task.queue = "celery";
    return task;
}

inline std::string base64_decode(const std::string& text) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (const char c : text) {
        if (c == '=') break;
        buffer = (buffer << 6) | static_cast<unsigned>(alphabet.find(c));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xff));
        }
    }
    return out;
}

}  // namespace rowpump::test
