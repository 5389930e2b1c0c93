#pragma once
// A fixture's own set-up, run only when its base's succeeded: a base that cannot reach its servers fails
// with a fatal failure, and the fixture must not go on to use them. Derive from Prepared<Base> and override
// prepare(), rather than writing SetUp() with that check each time.
#include <gtest/gtest.h>

namespace rowpump::test {

template <class Base>
class Prepared : public Base {
protected:
    virtual void prepare() = 0;

    void SetUp() override {
        Base::SetUp();
        if (!this->HasFatalFailure() && !this->IsSkipped()) prepare();
    }
};

}  // namespace rowpump::test
