// -kiln-attention-to-gpu: kiln.attention and kiln.attention_grad on the GPU
// path as blockwise kernels that never store the [N, Tq, Tk] scores. The
// input (Inputs/attention-kernels.mlir) is 4 heads of 130 queries and keys
// at head dim 64 with an additive mask: 5 tiles of 32 rows, the last
// partial. ptxas.test assembles every kernel for sm_80 and sm_90 (0
// spills).
// RUN: kiln-opt %S/Inputs/attention-kernels.mlir -kiln-gpu-pipeline | FileCheck %s
// RUN: kiln-opt %S/Inputs/attention-kernels.mlir -kiln-gpu-pipeline -mlir-print-ir-after=kiln-attention-to-gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=IR
// The kernels run by the emulator (every thread a block of its own) match
// the reference interpreter.
// RUN: kiln-run %S/Inputs/attention-kernels.mlir --entry attn --random-inputs 3 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=FWD
// RUN: kiln-run %S/Inputs/attention-kernels.mlir --entry attn_grad --random-inputs 4 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=BWD

// The forward: one launch, a block of 32 threads per head and tile of 32
// queries (4 x 5); only the results and the row statistics are allocated.
// CHECK-LABEL: func.func @attn(
// CHECK-NOT: memref<4x130x130xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_attention_0_fwd blocks in (%c20{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}) threads in (%c32{{(_[0-9]+)?}},
// CHECK-NOT: memref<4x130x130xf32>
// The backward: the forward again (its o, m and l), then dq (tiles of 16
// queries: 4 x 9 blocks), dk and dv (tiles of 32 keys).
// CHECK-LABEL: func.func @attn_grad(
// CHECK-NOT: memref<4x130x130xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_attention_1_fwd
// CHECK: gpu.launch_func @kiln_gpu::@kiln_attention_2_dq blocks in (%c36{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}) threads in (%c16{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_attention_2_dk blocks in (%c20{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}) threads in (%c32{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_attention_2_dv blocks in (%c20{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}) threads in (%c32{{(_[0-9]+)?}},
// CHECK-NOT: memref<4x130x130xf32>
// CHECK: gpu.binary @kiln_gpu

// The forward kernel: shared buffers for the thread's own query row
// (padded to 65) and a tile of keys and of values; the key tiles' loop
// carries the row's maximum, sum and 64 accumulators; each tile is loaded
// between barriers; the scores are rescaled only when the maximum grows.
// IR-LABEL: gpu.func @kiln_attention_0_fwd(
// IR-SAME: workgroup(%[[OWN:[^ ]+]] : memref<2080xf32, #gpu.address_space<workgroup>>, %[[KEYS:[^ ]+]] : memref<2048xf32, #gpu.address_space<workgroup>>, %[[VALUES:[^ ]+]] : memref<2048xf32, #gpu.address_space<workgroup>>)
// IR-SAME: known_block_size = array<i32: 32, 1, 1>
// IR: scf.for %{{.+}} = %block_id_x to %c20 step %grid_dim_x {
// IR: scf.for %{{.+}} = %thread_id_x to %c32{{[_0-9]*}} step %block_dim_x {
// IR: scf.for %{{.+}} = %c0{{[_0-9]*}} to %c5{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args({{(%[^ ]+ = %cst[_0-9]*, ){65}%[^ ]+ = %cst[_0-9]*}}) -> ({{(f32, ){65}f32}}) {
// IR: gpu.barrier
// IR: memref.store %{{.+}}, %[[KEYS]]
// IR: memref.store %{{.+}}, %[[VALUES]]
// IR: gpu.barrier
// IR: arith.maximumf
// IR: arith.cmpf une
// IR: scf.if %{{.+}} -> ({{(f32, ){64}f32}}) {
// IR: math.exp
// IR-LABEL: gpu.func @kiln_attention_2_dq(

// FWD: reference: out0 tensor<4x130x64xf32> matches
// FWD: "kernel_launches": 1,
// BWD: reference: out0 tensor<4x130x64xf32> matches
// BWD: reference: out1 tensor<4x130x64xf32> matches
// BWD: reference: out2 tensor<4x130x64xf32> matches
// BWD: "kernel_launches": 4,
