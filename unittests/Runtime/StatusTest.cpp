//===- StatusTest.cpp - the runtime's statuses ----------------------------===//
//
// A failure carries its code and message; success is NULL; context goes in
// front; every record is freed by whoever holds it (ASan checks that).
//
//===----------------------------------------------------------------------===//

#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "gtest/gtest.h"

#include <string>

namespace {

TEST(StatusTest, SuccessIsNull) {
  kiln_rt_status success = KILN_RT_SUCCESS;
  EXPECT_EQ(success, nullptr);
  EXPECT_EQ(kiln_rt_status_code_of(success), KILN_RT_OK);
  EXPECT_STREQ(kiln_rt_status_message(success), "");
  EXPECT_EQ(kiln_rt_status_annotate(success, "context"), nullptr);
  kiln_rt_status_free(success); // a no-op
  // A code of OK makes no record.
  EXPECT_EQ(kiln_rt_status_make(KILN_RT_OK, "ignored %d", 1), nullptr);
}

TEST(StatusTest, AFailureCarriesItsCodeAndMessage) {
  kiln_rt_status status =
      kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "bad %s: %d", "size", -1);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_rt_status_code_of(status), KILN_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_rt_status_message(status), "bad size: -1");
  kiln_rt_status_free(status);

  // Messages are not cut short (the old per-thread buffer held 1 KiB).
  std::string longText(5000, 'x');
  status = kiln_rt_status_make(KILN_RT_INTERNAL, "%s!", longText.c_str());
  EXPECT_EQ(kiln_rt_status_message(status), longText + "!");
  kiln_rt_status_free(status);
}

TEST(StatusTest, AnnotatePutsContextInFront) {
  kiln_rt_status status =
      kiln_rt_status_make(KILN_RT_UNAVAILABLE, "cuInit: no device");
  status = kiln_rt_status_annotate(status, "loading %s", "m.kiln");
  EXPECT_EQ(kiln_rt_status_code_of(status), KILN_RT_UNAVAILABLE);
  EXPECT_STREQ(kiln_rt_status_message(status), "loading m.kiln: cuInit: no "
                                               "device");
  status = kiln_rt_status_annotate(status, "@main");
  EXPECT_STREQ(kiln_rt_status_message(status),
               "@main: loading m.kiln: cuInit: no device");
  kiln_rt_status_free(status);
}

// Two failures never mix: each message is its own record's (one
// per-thread buffer held only the last).
TEST(StatusTest, EachFailureKeepsItsOwnMessage) {
  kiln_rt_status first = kiln_rt_cuda_synchronize();
  kiln_rt_status second = kiln_rt_cuda_trim();
  EXPECT_EQ(kiln_rt_status_code_of(first), KILN_RT_UNAVAILABLE);
  EXPECT_EQ(std::string(kiln_rt_status_message(first))
                .rfind("kiln_rt_cuda_synchronize: ", 0),
            0u)
      << kiln_rt_status_message(first);
  EXPECT_EQ(std::string(kiln_rt_status_message(second))
                .rfind("kiln_rt_cuda_trim: ", 0),
            0u)
      << kiln_rt_status_message(second);
  kiln_rt_status_free(first);
  kiln_rt_status_free(second);
}

} // namespace
