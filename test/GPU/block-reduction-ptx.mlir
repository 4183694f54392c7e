// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline | FileCheck %s --implicit-check-not=__nv_
// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline -mlir-print-ir-after=kiln-map-kernels-to-gpu 2>&1 >/dev/null | FileCheck %s --implicit-check-not=__nv_ --check-prefix=IR
// RUN: kiln-run %s --entry long_rows --random-inputs 5 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry total_max --random-inputs 6 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry total_sum_2d --random-inputs 7 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry per_batch_sum --random-inputs 8 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry bias_gradient --random-inputs 9 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry column_max --random-inputs 10 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry norm_weight_gradients --random-inputs 14 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED2
// RUN: kiln-run %s --entry split_bias_gradient --random-inputs 15 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED2
// RUN: kiln-run %s --entry split_columns_f64 --random-inputs 16 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED-F64
// RUN: kiln-run %s --entry split_total_sum --random-inputs 11 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry split_rows_max --random-inputs 12 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-run %s --entry split_mean --random-inputs 13 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline=block-size=32 | FileCheck %s --implicit-check-not=__nv_ --check-prefix=ONE-WARP

// Rows of 1024 or more get a block per row: 64 rows = 64 blocks of 256
// threads. The threads stride over the row; each warp reduces by shuffles,
// lane 0 of each leaves its total in 32 f32 slots of shared memory
// (128 bytes), and after a barrier the warps reduce the slots. Run on the
// CPU, every thread a block of its own, it matches the reference.

// CHECK-LABEL: func.func @long_rows(
// CHECK: gpu.launch_func @kiln_gpu::@[[ROWS:kiln_kernel_[0-9]+]] blocks in (%c64,
// CHECK: gpu.binary @kiln_gpu
// CHECK-SAME: .visible .entry [[ROWS]](
// CHECK-SAME: .shared .align 4 .b8 __wg_[[ROWS]]_0[128];
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync

// IR: gpu.func @kiln_kernel_{{[0-9]+}}({{.*}}) workgroup(%[[SLOTS:[^ ]+]] : memref<32xf32, #gpu.address_space<workgroup>>)
// IR: scf.for %{{.+}} = %block_id_x{{[_0-9]*}} to %{{.+}} step %grid_dim_x
// IR: gpu.subgroup_reduce add
// IR: memref.store %{{.+}}, %[[SLOTS]]
// IR: gpu.barrier
// IR: memref.load %[[SLOTS]]
// IR: gpu.subgroup_reduce add
// IR: gpu.barrier

// Blocks of one warp need no cross-warp step.
// ONE-WARP-LABEL: func.func @long_rows(
// ONE-WARP-NOT: bar.sync
// ONE-WARP: shfl.sync.bfly.b32

// EMULATED: reference: out0 tensor<{{.*}}f32> matches
func.func @long_rows(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %e = kiln.exp %x : tensor<64x4096xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A whole tensor's max, shorter than the 32768 elements that would split
// it across the grid (below): one output, one block, one launch (the fill
// of its output is in the same kernel: the block combines the fill value
// with its result, and thread 0 stores it once).
// CHECK-LABEL: func.func @total_max(
// CHECK: gpu.launch_func @kiln_gpu::@[[MAX:kiln_kernel_[0-9]+]] blocks in (%c1{{(_[0-9]+)?}},
// CHECK-NOT: gpu.launch_func
// CHECK: .visible .entry [[MAX]](
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
// IR: gpu.func @kiln_kernel_{{[0-9]+}}({{.*}}) workgroup(
// IR: gpu.subgroup_reduce maximumf
// IR: gpu.barrier
// IR: arith.maximumf %{{.+}}, %{{.+}} : f32
// IR: memref.store %{{.+}}, %{{.+}}[] : memref<f32>
func.func @total_max(%x: tensor<30000xf32>) -> tensor<f32> {
  %m = kiln.reduce_max %x, dims = [0] : tensor<30000xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A whole 2-D tensor's sum (a training step's loss): its reduction dims
// flattened, so that one block's threads stride over all 12000 elements
// (rows of 40 would leave most of the block idle), each element's column a
// remainder of its index. Before, one thread summed them all.
// CHECK-LABEL: func.func @total_sum_2d(
// CHECK: gpu.launch_func @kiln_gpu::@[[SUM:kiln_kernel_[0-9]+]] blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256,
// CHECK-NOT: gpu.launch_func
// CHECK: .visible .entry [[SUM]](
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// IR: scf.for %{{.+}} = %thread_id_x{{[_0-9]*}} to %c12000 step %block_dim_x
// IR: arith.remui %{{.+}}, %c40
// IR: gpu.subgroup_reduce add
// IR: gpu.barrier
func.func @total_sum_2d(%x: tensor<300x40xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0, 1] : tensor<300x40xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The trailing dims of each batch: a block per batch, over its 1500.
// CHECK-LABEL: func.func @per_batch_sum(
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+}} blocks in (%c4,
// IR: scf.for %{{.+}} = %thread_id_x{{[_0-9]*}} to %c1500 step %block_dim_x
// IR: gpu.subgroup_reduce add
func.func @per_batch_sum(%x: tensor<4x30x50xf32>) -> tensor<4xf32> {
  %s = kiln.reduce_sum %x, dims = [1, 2] : tensor<4x30x50xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A bias gradient fused with the product that feeds it (two outputs: the
// product, written as the rows are read, and its column sum): 70 columns
// are 3 tiles of a warp's width, a block each, its 8 warps splitting the
// 300 rows; the partials meet in shared memory. Before, 70 threads walked
// all the rows.
// CHECK-LABEL: func.func @bias_gradient(
// CHECK: gpu.launch_func @kiln_gpu::@[[BIAS:kiln_kernel_[0-9]+]] blocks in (%c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256,
// CHECK: .visible .entry [[BIAS]](
// CHECK-SAME: .shared .align 4 .b8 __wg_[[BIAS]]_0[1024];
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
func.func @bias_gradient(%x: tensor<300x70xf32>, %g: tensor<300x70xf32>) -> (tensor<300x70xf32>, tensor<70xf32>) {
  %t = kiln.tanh %x : tensor<300x70xf32>
  %d = kiln.mul %t, %g : tensor<300x70xf32>
  %s = kiln.reduce_sum %d, dims = [0] : tensor<300x70xf32> -> tensor<70xf32>
  return %d, %s : tensor<300x70xf32>, tensor<70xf32>
}

// -----

// The same down two leading dims (a max over batch and time): 512 rows of
// 33 columns, 2 tiles, split along the rows in 2 parts of 256 (4 blocks),
// then a thread per column over its 2 partials.
// CHECK-LABEL: func.func @column_max(
// CHECK: memref.alloc() : memref<66xf32>
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_0}} blocks in (%c4{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_1}} blocks in (%c1{{(_[0-9]+)?}},
func.func @column_max(%x: tensor<8x64x33xf32>) -> tensor<33xf32> {
  %m = kiln.reduce_max %x, dims = [0, 1] : tensor<8x64x33xf32> -> tensor<33xf32>
  return %m : tensor<33xf32>
}

// -----

// A long whole-tensor sum (a loss over 512x300): split across the grid,
// 37 parts of 4152 elements (the last shorter), a block each into a buffer
// of partials that the host allocates around the launches, then one block
// over the 37 partials. Both kernels assemble (ptxas.test runs ptxas).
// CHECK-LABEL: func.func @split_total_sum(
// CHECK: gpu.launch_func @kiln_gpu::@[[PARTS:kiln_kernel_[0-9]+_0]] blocks in (%c37,
// CHECK: gpu.launch_func @kiln_gpu::@[[TOTAL:kiln_kernel_[0-9]+_1]] blocks in (%c1{{(_[0-9]+)?}},
// CHECK: .visible .entry [[PARTS]](
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK: .visible .entry [[TOTAL]](
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// IR: memref.alloc() : memref<37xf32>
func.func @split_total_sum(%x: tensor<512x300xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0, 1] : tensor<512x300xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// 3 rows of 50000, a max each: 12 parts per row, 36 blocks, then a block
// per row.
// CHECK-LABEL: func.func @split_rows_max(
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_0}} blocks in (%c36,
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_1}} blocks in (%c3,
func.func @split_rows_max(%x: tensor<3x50000xf32>) -> tensor<3xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<3x50000xf32> -> tensor<3xf32>
  return %m : tensor<3xf32>
}

// -----

// A mean over 40000 elements: the split sum's total is read by the
// scaling after it, in a launch of its own.
// CHECK-LABEL: func.func @split_mean(
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_0}} blocks in (%c9,
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_1}} blocks in (%c1{{(_[0-9]+)?}},
// CHECK: gpu.launch_func
func.func @split_mean(%x: tensor<200x200xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0, 1] : tensor<200x200xf32> -> tensor<f32>
  %n = kiln.constant dense<2.5e-05> : tensor<f32>
  %m = kiln.mul %s, %n : tensor<f32>
  return %m : tensor<f32>
}

// -----

// A norm's weight gradients (dgamma = the column sums of x * dy, dbeta =
// those of dy) at [2048, 96]: 3 tiles of 32 columns would be 3 blocks;
// split along the rows in 8 parts of 256, 24 blocks write [part, column]
// partials, then a thread per column adds its 8 in order (ptxas.test
// assembles both kernels).
// CHECK-LABEL: func.func @norm_weight_gradients(
// CHECK: memref.alloc() : memref<768xf32>
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_0}} blocks in (%c24{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_1}} blocks in (%c1{{(_[0-9]+)?}},
// IR-LABEL: gpu.func @kiln_kernel_0_0(%{{[^:]+}}: memref<96xf32
// IR: %[[TILES:.+]] = arith.ceildivui %c96{{[_0-9]*}}, %{{.+}} : index
// IR: %[[UNITS:.+]] = arith.muli %[[TILES]], %c8{{[_0-9]*}} : index
// IR: scf.for %[[UNIT:.+]] = %block_id_x{{[_0-9]*}} to %[[UNITS]] step %grid_dim_x
// IR-NEXT: %[[PART:.+]] = arith.divui %[[UNIT]], %[[TILES]] : index
// IR-NEXT: arith.remui %[[UNIT]], %[[TILES]] : index
// IR: %[[BEGIN:.+]] = arith.muli %[[PART]], %c256{{[_0-9]*}} : index
// IR: scf.for %{{.+}} = %{{.+}} to %{{.+}} step
// IR: memref.load
// IR: arith.addf
// IR: gpu.barrier
// IR: %[[SLOT:.+]] = arith.muli %[[PART]], %c96{{[_0-9]*}} : index
// IR: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<768xf32>
// IR-LABEL: gpu.func @kiln_kernel_0_1(%{{[^:]+}}: memref<96xf32
// IR: scf.for %[[COL:.+]] = %{{.+}} to %c96{{[_0-9]*}} step
// IR: scf.for %[[P:.+]] = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(
// IR: memref.load %{{.+}}[%{{.+}}] : memref<768xf32>
// EMULATED2: reference: out0 tensor<{{.*}}f32> matches
// EMULATED2: reference: out1 tensor<{{.*}}f32> matches
func.func @norm_weight_gradients(%x: tensor<2048x96xf32>, %dy: tensor<2048x96xf32>) -> (tensor<96xf32>, tensor<96xf32>) {
  %p = kiln.mul %x, %dy : tensor<2048x96xf32>
  %dgamma = kiln.reduce_sum %p, dims = [0] : tensor<2048x96xf32> -> tensor<96xf32>
  %dbeta = kiln.reduce_sum %dy, dims = [0] : tensor<2048x96xf32> -> tensor<96xf32>
  return %dgamma, %dbeta : tensor<96xf32>, tensor<96xf32>
}

// -----

// A bias gradient that also writes its product as the rows are read, at
// 1024 rows of 70: 3 tiles in 4 parts; the product is written once per
// element by the parts, the totals only read partials.
// CHECK-LABEL: func.func @split_bias_gradient(
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_0}} blocks in (%c12{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@{{kiln_kernel_[0-9]+_1}} blocks in (%c1{{(_[0-9]+)?}},
func.func @split_bias_gradient(%x: tensor<1024x70xf32>, %g: tensor<1024x70xf32>) -> (tensor<1024x70xf32>, tensor<70xf32>) {
  %t = kiln.tanh %x : tensor<1024x70xf32>
  %d = kiln.mul %t, %g : tensor<1024x70xf32>
  %s = kiln.reduce_sum %d, dims = [0] : tensor<1024x70xf32> -> tensor<70xf32>
  return %d, %s : tensor<1024x70xf32>, tensor<70xf32>
}

// -----

// f64 columns: the partials are f64 too.
// CHECK-LABEL: func.func @split_columns_f64(
// CHECK: memref.alloc() : memref<132xf64>
// EMULATED-F64: reference: out0 tensor<33xf64> matches
func.func @split_columns_f64(%x: tensor<4x300x33xf64>) -> tensor<33xf64> {
  %s = kiln.reduce_sum %x, dims = [0, 1] : tensor<4x300x33xf64> -> tensor<33xf64>
  return %s : tensor<33xf64>
}
