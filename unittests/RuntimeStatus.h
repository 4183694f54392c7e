//===- RuntimeStatus.h - the runtime's statuses in gtest checks -*- C++ -*-===//
//
// A kiln_rt_status taken into a value that assertions compare with a code
// and print with its message; the record is freed at once, so that a test
// leaks none (a status is its receiver's to free: kiln_rt.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_RUNTIMESTATUS_H
#define KILN_UNITTESTS_RUNTIMESTATUS_H

#include "kiln_rt/kiln_rt.h"

#include <ostream>
#include <string>

namespace kiln::test {

/// A status's code and message, its record freed.
struct Status {
  kiln_rt_status_code code;
  std::string message;
};

/// Takes (and frees) `status`.
inline Status take(kiln_rt_status status) {
  Status taken{kiln_rt_status_code_of(status), kiln_rt_status_message(status)};
  kiln_rt_status_free(status);
  return taken;
}

inline bool operator==(const Status &status, kiln_rt_status_code code) {
  return status.code == code;
}
inline bool operator!=(const Status &status, kiln_rt_status_code code) {
  return status.code != code;
}

/// What a failed assertion prints: the code's name and the message.
inline std::ostream &operator<<(std::ostream &os, const Status &status) {
  return os << kiln_rt_status_string(status.code) << " \"" << status.message
            << "\"";
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_RUNTIMESTATUS_H
