#include "backend/mysql_queue/mysql_page_writer.hpp"

#include "mysql/transaction.hpp"

namespace rowpump::mysql {

bool PageWriter::write(const std::vector<Message>& batch, const CheckpointMove* fence) {
    Transaction transaction(connection_);
    // The checkpoint's row is locked first: a split commits a new upper bound under the same lock, so a
    // page is either written before the split or refused after it.
    if (fence && connection_.execute(fence->sql, fence->params) == 0) {
        transaction.rollback();
        return false;
    }
    inserter_.insert(batch);
    transaction.commit();
    return true;
}

std::uint64_t PageWriter::ready_count() {
    auto result = connection_.query("SELECT COUNT(*) FROM " + quote_identifier(table_) + " WHERE status = 'ready'");
    result.next();
    return result.uint64(1);
}

}  // namespace rowpump::mysql
