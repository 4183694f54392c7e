//===- NcclTest.cpp - GPU collectives on the stand-in driver and NCCL -----===//
//
// The communication stream's events against the stand-in driver, which
// checks what a real capture checks: a collective started inside a graph
// capture forks the communication stream into it, and only its wait joins
// it back (a capture left unjoined fails to end). The graph replays the
// collective; the staging of a collective along an inner dim round-trips.
// One test: NCCL is set up once per process, in one CUDA session.
//
//===----------------------------------------------------------------------===//

#include "RuntimeStatus.h"
#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"
#include "kiln_rt/kiln_rt_dist.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using kiln::test::Status;
using kiln::test::take;

/// `count` floats copied back from the device.
std::vector<float> read(const void *device, size_t count) {
  std::vector<float> host(count);
  EXPECT_EQ(
      take(kiln_rt_cuda_copy_to_host(host.data(), device, count * 4, nullptr)),
      KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_stream_synchronize(nullptr)), KILN_RT_OK);
  return host;
}

TEST(NcclTest, CollectivesForkAndJoinGraphCaptures) {
  setenv("KILN_RT_LIBCUDA", KILN_FAKE_CUDA_DRIVER, 1);
  setenv("KILN_NCCL_LIBRARY", KILN_FAKE_NCCL, 1);
  setenv("KILN_DIST", "none", 1);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);

  std::vector<float> data(32);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = 0.5f * static_cast<float>(i) - 3.0f;
  void *in = nullptr, *out = nullptr, *staging = nullptr;
  ASSERT_EQ(take(kiln_rt_cuda_malloc(128, &in)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_malloc(128, &out)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(in, data.data(), 128, nullptr)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(out, 128, nullptr)), KILN_RT_OK);

  kiln_rt_dist_collective sum = {};
  sum.kind = KILN_RT_DIST_ALL_REDUCE;
  sum.reduction = KILN_RT_DIST_SUM;
  sum.dtype = KILN_RT_DIST_F32;
  sum.outer = 1;
  sum.inner = 32;
  sum.input = in;
  sum.output = out;
  EXPECT_EQ(kiln_rt_dist_nccl_staging_bytes(&sum), 0u);
  ASSERT_EQ(take(kiln_rt_dist_nccl_run(&sum, nullptr)), KILN_RT_OK);
  EXPECT_EQ(read(out, 32), data); // one rank: the sum is the operand

  // Started in a capture and never waited for: the communication stream
  // is left forked, and the capture cannot end.
  kiln_rt_cuda_stream *stream = nullptr;
  ASSERT_EQ(take(kiln_rt_cuda_stream_create(&stream)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(out, 128, nullptr)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_capture_begin(stream)), KILN_RT_OK);
  kiln_rt_dist_nccl_request *request = nullptr;
  ASSERT_EQ(take(kiln_rt_dist_nccl_start(&sum, stream, &request)), KILN_RT_OK);
  kiln_rt_cuda_graph *graph = nullptr;
  Status failure =
      take(kiln_rt_cuda_capture_end(stream, KILN_RT_SUCCESS, &graph));
  EXPECT_NE(failure, KILN_RT_OK);
  EXPECT_NE(failure.message.find("904"), std::string::npos)
      << failure; // CUDA_ERROR_STREAM_CAPTURE_UNJOINED
  EXPECT_EQ(graph, nullptr);
  take(kiln_rt_dist_nccl_wait(request, nullptr)); // gives the request back

  // Waited for: joined, and the graph replays the collective (the capture
  // itself ran nothing).
  ASSERT_EQ(take(kiln_rt_cuda_capture_begin(stream)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_dist_nccl_start(&sum, stream, &request)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_dist_nccl_wait(request, stream)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_capture_end(stream, KILN_RT_SUCCESS, &graph)),
            KILN_RT_OK);
  EXPECT_EQ(read(out, 32), std::vector<float>(32, 0.0f));
  ASSERT_EQ(take(kiln_rt_cuda_graph_launch(graph, nullptr)), KILN_RT_OK);
  EXPECT_EQ(read(out, 32), data);
  kiln_rt_cuda_graph_destroy(graph);

  // Along an inner dim ([4][8] of each rank), through staging.
  kiln_rt_dist_collective gather = sum;
  gather.kind = KILN_RT_DIST_ALL_GATHER;
  gather.outer = 4;
  gather.inner = 8;
  ASSERT_EQ(kiln_rt_dist_nccl_staging_bytes(&gather), 128u);
  failure = take(kiln_rt_dist_nccl_run(&gather, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_NE(failure.message.find("needs 128 bytes of staging"),
            std::string::npos)
      << failure;
  ASSERT_EQ(take(kiln_rt_cuda_malloc(128, &staging)), KILN_RT_OK);
  gather.staging = staging;
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(out, 128, nullptr)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_dist_nccl_run(&gather, nullptr)), KILN_RT_OK);
  EXPECT_EQ(read(out, 32), data);
  kiln_rt_dist_collective scatter = gather;
  scatter.kind = KILN_RT_DIST_REDUCE_SCATTER;
  scatter.input = out;
  scatter.output = in;
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(in, 128, nullptr)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_dist_nccl_run(&scatter, nullptr)), KILN_RT_OK);
  EXPECT_EQ(read(in, 32), data);

  // A group's communicator is made at its first collective.
  int members[] = {0};
  int64_t group = 0;
  ASSERT_EQ(take(kiln_rt_dist_group_create(members, 1, &group)), KILN_RT_OK);
  EXPECT_EQ(group, 1);
  kiln_rt_dist_collective grouped = sum;
  grouped.group = group;
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(out, 128, nullptr)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_dist_nccl_run(&grouped, nullptr)), KILN_RT_OK);
  EXPECT_EQ(read(out, 32), data);
  grouped.group = 5;
  failure = take(kiln_rt_dist_nccl_run(&grouped, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_NE(failure.message.find("group 5 is not a communicator"),
            std::string::npos)
      << failure;

  kiln_rt_dist_stats stats;
  kiln_rt_dist_get_stats(&stats);
  EXPECT_EQ(stats.collectives, 4u); // the direct runs: captures count none

  EXPECT_EQ(take(kiln_rt_cuda_stream_destroy(stream)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_free(staging)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_free(in)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_free(out)), KILN_RT_OK);
  kiln_rt_cuda_shutdown();
  unsetenv("KILN_RT_LIBCUDA");
  unsetenv("KILN_NCCL_LIBRARY");
  unsetenv("KILN_DIST");
}

} // namespace
