// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu="vector-width=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu | FileCheck %s --check-prefix=VEC
// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// A row kernel (softmax: a max, a sum of exp(x - max), then each element
// over the sum) is one launch: a warp per row, grid-striding over the 16
// rows (16 warps of 32 lanes = 2 blocks of 256). On each row the two
// reductions are each lane's share, combined by warp shuffles; the max and
// the sum are SSA values every lane holds (later nests read no buffer for
// them), and lane 0 stores them. The results' nest walks the row as the
// reductions do.
// CHECK-LABEL: func.func @softmax(
// CHECK: %[[BLOCKS:.+]] = arith.constant 2 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]],
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<16x100xf32>, %[[M:[^:]+]]: memref<16xf32>, %[[S:[^:]+]]: memref<16xf32>, %[[Y:[^:]+]]: memref<16x100xf32>)
// CHECK-NOT: workgroup
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LANE:.+]] = gpu.lane_id
// CHECK: scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]]
// CHECK: %[[MSHARE:.+]] = scf.for %{{.+}} = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// CHECK: arith.maximumf
// CHECK: %[[MTOTAL:.+]] = gpu.subgroup_reduce maximumf %[[MSHARE]] uniform
// CHECK: %[[MAX:.+]] = arith.maximumf %[[NEGINF]], %[[MTOTAL]]
// CHECK: scf.if %[[LANE0]] {
// CHECK-NEXT: memref.store %[[MAX]], %[[M]][%[[ROW]]]
// CHECK: %[[SSHARE:.+]] = scf.for %[[J:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[XJ:.+]] = memref.load %[[X]][%[[ROW]], %[[J]]]
// CHECK-NEXT: arith.subf %[[XJ]], %[[MAX]]
// CHECK: %[[STOTAL:.+]] = gpu.subgroup_reduce add %[[SSHARE]] uniform
// CHECK: %[[SUM:.+]] = arith.addf %[[ZERO]], %[[STOTAL]]
// CHECK: scf.for %[[K:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} {
// CHECK-NOT: memref.load %[[M]]
// CHECK-NOT: memref.load %[[S]]
// CHECK: arith.divf %{{.+}}, %[[SUM]]
// CHECK: memref.store %{{.+}}, %[[Y]][%[[ROW]], %[[K]]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// The first two kernels of this file are row kernels, the third is not.
// STATS: 2 kiln-gpu-row-kernels

// With vector accesses (the default, 4 f32): where every buffer is 16-byte
// aligned (one uniform branch), each lane takes 4 elements of the row at a
// time: 128-bit loads, the payload once per element, its accumulators in
// turn, 128-bit stores. The scalar loop otherwise.
// VEC-LABEL: func.func @softmax(
// VEC: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<16x100xf32>, %{{[^:]+}}: memref<16xf32>, %{{[^:]+}}: memref<16xf32>, %[[Y:[^:]+]]: memref<16x100xf32>)
// VEC: memref.extract_aligned_pointer_as_index %[[X]]
// VEC: memref.extract_aligned_pointer_as_index %[[Y]]
// VEC: scf.if %{{.+}} {
// VEC: %[[LANE:.+]] = gpu.lane_id
// VEC: %[[FIRST:.+]] = arith.muli %[[LANE]], %{{.+}} : index
// VEC: scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// VEC: scf.for %[[J:.+]] = %[[FIRST]] to %{{.+}} step %{{.+}} iter_args
// VEC: %[[V:.+]] = vector.load %[[X]][%[[ROW]], %[[J]]] {alignment = 16 : i64} : memref<16x100xf32>, vector<4xf32>
// VEC-COUNT-4: arith.maximumf
// VEC: gpu.subgroup_reduce maximumf
// VEC: vector.load %[[X]]
// VEC: gpu.subgroup_reduce add
// VEC: vector.load %[[X]]
// VEC: %[[OUT:.+]] = vector.from_elements
// VEC: vector.store %[[OUT]], %[[Y]][%[[ROW]], %{{.+}}] {alignment = 16 : i64}
// VEC: } else {
// VEC: memref.load %[[X]]
// VEC-NOT: vector.load
// VEC: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: memref<16x100xf32>, %m: memref<16xf32>, %s: memref<16xf32>, %y: memref<16x100xf32>) {
  call @kiln_kernel_0(%x, %m, %s, %y) : (memref<16x100xf32>, memref<16xf32>, memref<16xf32>, memref<16x100xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<16x100xf32>, %m: memref<16xf32>, %s: memref<16xf32>, %y: memref<16x100xf32>) attributes {kiln.kernel} {
  %neginf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%neginf : f32) outs(%m : memref<16xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<16x100xf32>) outs(%m : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<16xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<16x100xf32>, memref<16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%a: f32, %mx: f32, %acc: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s : memref<16x100xf32>, memref<16xf32>, memref<16xf32>) outs(%y : memref<16x100xf32>) {
  ^bb0(%a: f32, %mx: f32, %sum: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %sum : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// Rows of 1024 or more: a block per row (4 rows, 4 blocks). A row's
// reduction combines the block's warps through shared memory, with
// barriers; the mean (a nest over the rows) is computed in every thread
// from the SSA sum, and thread 0 stores it.
// CHECK-LABEL: func.func @center_long_rows(
// CHECK: %[[BLOCKS:.+]] = arith.constant 4 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]],
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<4x2048xf32>, %[[S:[^:]+]]: memref<4xf32>, %[[MEAN:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x2048xf32>) workgroup(
// CHECK: arith.addi
// CHECK: %[[BLOCK:.+]] = gpu.block_id x
// CHECK-NEXT: %[[GRID:.+]] = gpu.grid_dim x
// CHECK-NEXT: %[[TID:.+]] = gpu.thread_id x
// CHECK: scf.for %[[ROW:.+]] = %[[BLOCK]] to %{{.+}} step %[[GRID]] {
// CHECK: gpu.subgroup_reduce add
// CHECK: gpu.barrier
// CHECK: %[[TOTAL:.+]] = gpu.subgroup_reduce add
// CHECK: gpu.barrier
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %[[TOTAL]]
// CHECK: %[[M:.+]] = arith.mulf %[[SUM]], %{{.+}} : f32
// CHECK: memref.store %[[M]], %[[MEAN]][%[[ROW]]]
// CHECK: scf.for %[[J:.+]] = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK: arith.subf %{{.+}}, %[[M]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0) -> (d0)>
func.func @center_long_rows(%x: memref<4x2048xf32>, %s: memref<4xf32>, %mean: memref<4xf32>, %y: memref<4x2048xf32>) {
  call @kiln_kernel_0(%x, %s, %mean, %y) : (memref<4x2048xf32>, memref<4xf32>, memref<4xf32>, memref<4x2048xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x2048xf32>, %s: memref<4xf32>, %mean: memref<4xf32>, %y: memref<4x2048xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 4.8828125E-4 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x2048xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]} ins(%s : memref<4xf32>) outs(%mean : memref<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %inv : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : memref<4x2048xf32>, memref<4xf32>) outs(%y : memref<4x2048xf32>) {
  ^bb0(%a: f32, %mu: f32, %out: f32):
    %r = arith.subf %a, %mu : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// What a nest over the row writes, read transposed within the row by a
// later nest: a thread would read another's element. The kernel keeps one
// launch per dependent stage.
// CHECK-LABEL: func.func @transposed_read(
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#row = affine_map<(d0, d1, d2) -> (d0)>
func.func @transposed_read(%x: memref<4x8x8xf32>, %t: memref<4x8x8xf32>, %s: memref<4xf32>) {
  call @kiln_kernel_0(%x, %t, %s) : (memref<4x8x8xf32>, memref<4x8x8xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8x8xf32>, %t: memref<4x8x8xf32>, %s: memref<4xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<4x8x8xf32>) outs(%t : memref<4x8x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#tr, #id, #row], iterator_types = ["parallel", "reduction", "reduction"]} ins(%t, %x : memref<4x8x8xf32>, memref<4x8x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
