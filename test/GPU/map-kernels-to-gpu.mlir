// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu="block-size=64 vector-width=1 max-blocks=4" | FileCheck %s --check-prefix=OPT

// -kiln-map-kernels-to-gpu turns each outlined kernel (a kiln.kernel
// function of linalg ops on buffers) into a gpu.func in gpu.module
// @kiln_gpu and each call of it into a gpu.launch_func of `block-size`
// threads over a 1-D grid sized to the work (at most `max-blocks`). Checked
// here: the thread index and grid-stride loop, the vector path behind its
// alignment check, warp and block shuffle reductions (with the fill they
// absorb), sequential reductions over outer dims, and the options. Kernels
// split into several launches are in kernel-argument-aliases.mlir, refused
// ones in map-kernels-to-gpu-invalid.mlir.

// Elementwise: one grid-stride loop over the 4x8 elements, each thread
// starting at blockIdx * blockDim + threadIdx and stepping by
// gridDim * blockDim. The innermost dim is contiguous everywhere and a
// multiple of 4, so a vector path of 128-bit loads and stores (8 groups of
// 4) runs where all three buffers are 16-byte aligned, the scalar loop
// otherwise. The call becomes a launch of 256-thread blocks; the work is 8
// vector groups, one block. The kernel function is gone.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x8xf32>, %[[Y:[^:]+]]: memref<4x8xf32>, %[[Z:[^:]+]]: memref<4x8xf32>)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[THREADS:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[BLOCKS:.+]] = arith.constant 1 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]], %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]]) args(%[[X]] : memref<4x8xf32>, %[[Y]] : memref<4x8xf32>, %[[Z]] : memref<4x8xf32>)
// CHECK-NOT: kiln_kernel_0
// CHECK: gpu.module @kiln_gpu
// CHECK: gpu.func @kiln_kernel_0(%[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<4x8xf32>, %[[C:[^:]+]]: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: %[[BDIM:.+]] = gpu.block_dim x
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[GDIM:.+]] = gpu.grid_dim x
// CHECK: %[[M:.+]] = arith.muli %[[BID]], %[[BDIM]] : index
// CHECK: %[[FIRST:.+]] = arith.addi %[[M]], %[[TID]] : index
// CHECK: %[[STRIDE:.+]] = arith.muli %[[GDIM]], %[[BDIM]] : index
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: arith.constant 16 : index
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: %[[ALIGNED:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: %[[GROUPS:.+]] = arith.constant 8 : index
// CHECK: scf.for %[[G:.+]] = %[[FIRST]] to %[[GROUPS]] step %[[STRIDE]] {
// CHECK: %[[L:.+]] = arith.muli %[[G]], %{{.+}} : index
// CHECK: %[[J:.+]] = arith.remui %[[L]], %{{.+}} : index
// CHECK: %[[I:.+]] = arith.divui %[[L]], %{{.+}} : index
// CHECK: %[[VA:.+]] = vector.load %[[A]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
// CHECK: %[[VB:.+]] = vector.load %[[B]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: %[[V:.+]] = vector.from_elements
// CHECK: vector.store %[[V]], %[[C]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: %[[ELEMENTS:.+]] = arith.constant 32 : index
// CHECK: scf.for %[[E:.+]] = %[[FIRST]] to %[[ELEMENTS]] step %[[STRIDE]] {
// CHECK: %[[SJ:.+]] = arith.remui %[[E]], %{{.+}} : index
// CHECK: %[[SI:.+]] = arith.divui %[[E]], %{{.+}} : index
// CHECK: %[[SA:.+]] = memref.load %[[A]][%[[SI]], %[[SJ]]]
// CHECK: %[[SB:.+]] = memref.load %[[B]][%[[SI]], %[[SJ]]]
// CHECK: %[[S:.+]] = arith.addf %[[SA]], %[[SB]] : f32
// CHECK: memref.store %[[S]], %[[C]][%[[SI]], %[[SJ]]]
// CHECK: gpu.return

// With vector-width=1 there is no vector path; the launches take 64-thread
// blocks.
// OPT-LABEL: func.func @elementwise(
// OPT: %[[T:.+]] = arith.constant 64 : index
// OPT: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%[[T]],
// OPT: gpu.func @kiln_kernel_0({{.*}}) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// OPT-NOT: scf.if
// OPT-NOT: vector.
// OPT: scf.for
// OPT: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>) {
  call @kiln_kernel_0(%x, %y, %z) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<4x8xf32>, memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row of 6 is not a multiple of 4: the scalar loop alone, no alignment
// check. 6000 elements are 24 blocks of 256 threads (max-blocks=4 caps them
// at 4: the grid-stride loop covers the rest).
// CHECK-LABEL: func.func @odd_rows(
// CHECK: %[[BLOCKS:.+]] = arith.constant 24 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]],
// CHECK: gpu.func @kiln_kernel_0(%[[A:[^:]+]]: memref<1000x6xf32>, %[[B:[^:]+]]: memref<1000x6xf32>)
// CHECK-NOT: scf.if
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[N:.+]] = arith.constant 6000 : index
// CHECK: scf.for %[[E:.+]] = %{{.+}} to %[[N]] step %{{.+}} {
// CHECK: %[[SIX:.+]] = arith.constant 6 : index
// CHECK: %[[J:.+]] = arith.remui %[[E]], %[[SIX]] : index
// CHECK: %[[I:.+]] = arith.divui %[[E]], %[[SIX]] : index
// CHECK: %[[V:.+]] = memref.load %[[A]][%[[I]], %[[J]]]
// CHECK: %[[R:.+]] = math.exp %[[V]] : f32
// CHECK: memref.store %[[R]], %[[B]][%[[I]], %[[J]]]
// CHECK-NOT: vector.
// CHECK: gpu.return

// OPT-LABEL: func.func @odd_rows(
// OPT: %[[B4:.+]] = arith.constant 4 : index
// OPT: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[B4]],
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @odd_rows(%x: memref<1000x6xf32>, %y: memref<1000x6xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<1000x6xf32>, memref<1000x6xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<1000x6xf32>, %y: memref<1000x6xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<1000x6xf32>) outs(%y : memref<1000x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A row sum over rows shorter than 1024: one warp per row. The warps
// grid-stride over the 16 rows; the lanes stride over the row, each from
// the identity, and combine with a subgroup reduction; the fill is not a
// loop of its own but the value the total joins; lane 0 stores. 16 rows of
// a warp each are 512 threads: 2 blocks.
// CHECK-LABEL: func.func @row_sum(
// CHECK: %[[BLOCKS:.+]] = arith.constant 2 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]],
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<16x128xf32>, %[[Y:[^:]+]]: memref<16xf32>)
// CHECK-NOT: workgroup
// CHECK: %[[FILL:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FIRST:.+]] = arith.addi
// CHECK: %[[STRIDE:.+]] = arith.muli
// CHECK: %[[WS:.+]] = gpu.subgroup_size : index
// CHECK: %[[WARP:.+]] = arith.divui %[[FIRST]], %[[WS]] : index
// CHECK: %[[WARPS:.+]] = arith.divui %[[STRIDE]], %[[WS]] : index
// CHECK: %[[LANE:.+]] = gpu.lane_id
// CHECK: %[[ROWS:.+]] = arith.constant 16 : index
// CHECK: scf.for %[[ROW:.+]] = %[[WARP]] to %[[ROWS]] step %[[WARPS]] {
// CHECK: %[[ID:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SHARE:.+]] = scf.for %[[COL:.+]] = %[[LANE]] to %{{.+}} step %[[WS]] iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: %[[S:.+]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[S]] : f32
// CHECK: %[[TOTAL:.+]] = gpu.subgroup_reduce add %[[SHARE]] uniform : (f32) -> f32
// CHECK: %[[R:.+]] = arith.addf %[[FILL]], %[[TOTAL]] : f32
// CHECK: %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// CHECK: scf.if %[[LANE0]] {
// CHECK: memref.store %[[R]], %[[Y]][%[[ROW]]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: memref<16x128xf32>, %y: memref<16xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<16x128xf32>, memref<16xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<16x128xf32>, %y: memref<16xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<16xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<16x128xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows of 1024 or more: one block per row. Each warp reduces its threads'
// shares, lane 0 of each leaves the total in a workgroup slot, and after a
// barrier every warp reduces the slots (lanes past the block's warps take
// the identity, -inf for a max). Thread 0 stores. 4 rows: 4 blocks.
// CHECK-LABEL: func.func @long_row_max(
// CHECK: %[[BLOCKS:.+]] = arith.constant 4 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[BLOCKS]],
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<4x2048xf32>, %[[Y:[^:]+]]: memref<4xf32>) workgroup(%[[SLOTS:[^ ]+]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[FILL:.+]] = arith.constant 0xFF800000 : f32
// CHECK: gpu.grid_dim x
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[BLOCK:.+]] = gpu.block_id x
// CHECK-NEXT: %[[GRID:.+]] = gpu.grid_dim x
// CHECK-NEXT: %[[TID:.+]] = gpu.thread_id x
// CHECK-NEXT: %[[BDIM:.+]] = gpu.block_dim x
// CHECK: scf.for %[[ROW:.+]] = %[[BLOCK]] to %{{.+}} step %[[GRID]] {
// CHECK: %[[ID:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[SHARE:.+]] = scf.for %{{.+}} = %[[TID]] to %{{.+}} step %[[BDIM]] iter_args(%{{.+}} = %[[ID]]) -> (f32) {
// CHECK: arith.maximumf
// CHECK: %[[WARPTOTAL:.+]] = gpu.subgroup_reduce maximumf %[[SHARE]] uniform : (f32) -> f32
// CHECK: %[[LANE:.+]] = gpu.lane_id
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[WARPTOTAL]], %[[SLOTS]]
// CHECK: gpu.barrier
// CHECK: %[[SLOT:.+]] = memref.load %[[SLOTS]]
// CHECK: %[[PART:.+]] = arith.select %{{.+}}, %[[SLOT]], %[[ID]] : f32
// CHECK: %[[TOTAL:.+]] = gpu.subgroup_reduce maximumf %[[PART]] uniform : (f32) -> f32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[R:.+]] = arith.maximumf %[[FILL]], %[[TOTAL]] : f32
// CHECK: %[[T0:.+]] = arith.cmpi eq, %[[TID]], %{{.+}} : index
// CHECK: scf.if %[[T0]] {
// CHECK-NEXT: memref.store %[[R]], %[[Y]][%[[ROW]]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @long_row_max(%x: memref<4x2048xf32>, %y: memref<4xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<4x2048xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x2048xf32>, %y: memref<4xf32>) attributes {kiln.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%y : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x2048xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A reduction over the outer dim (a column sum) of 64 rows: a block per
// tile of a warp's width of columns, its warps splitting the rows (each
// lane down its column from its warp's row, striding by the block's warps:
// reads coalesced across the lanes), the warps' partials through shared
// memory, combined in order by the first warp with the fill value, one
// store per column.
// CHECK-LABEL: func.func @column_sum(
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256,
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<64x8xf32>, %[[Y:[^:]+]]: memref<8xf32>) workgroup(%[[SLOTS:[^ ]+]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[FILL:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: %[[WIDTH:.+]] = gpu.subgroup_size : index
// CHECK: %[[LANE:.+]] = arith.remui %[[TID:[^,]+]], %[[WIDTH]] : index
// CHECK: %[[ROWLANE:.+]] = arith.divui %[[TID]], %[[WIDTH]] : index
// CHECK: %[[ROWLANES:.+]] = arith.divui %{{.+}}, %[[WIDTH]] : index
// CHECK: scf.for %[[TILE:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: %[[COL:.+]] = arith.addi %{{.+}}, %[[LANE]] : index
// CHECK: %[[PART:.+]] = scf.for %[[ROW:.+]] = %[[ROWLANE]] to %{{.+}} step %[[ROWLANES]] iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: arith.addf %[[V]], %[[ACC]] : f32
// CHECK: memref.store %[[PART]], %[[SLOTS]][%[[TID]]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[TOTAL:.+]] = scf.for
// CHECK: memref.load %[[SLOTS]]
// CHECK: %[[SUM:.+]] = arith.addf %[[FILL]], %[[TOTAL]] : f32
// CHECK: memref.store %[[SUM]], %[[Y]][%[[COL]]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: memref<64x8xf32>, %y: memref<8xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<64x8xf32>, memref<8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<64x8xf32>, %y: memref<8xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : memref<64x8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Too few rows for a block's warps to share (16): one thread per column, a
// sequential loop over the rows carrying the accumulator from the fill
// value (reads coalesced across the threads), one store after it.
// CHECK-LABEL: func.func @short_column_sum(
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<16x8xf32>, %[[Y:[^:]+]]: memref<8xf32>)
// CHECK: %[[FILL:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: %[[COLS:.+]] = arith.constant 8 : index
// CHECK: scf.for %[[COL:.+]] = %{{.+}} to %[[COLS]] step %{{.+}} {
// CHECK: %[[SUM:.+]] = scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[FILL]]) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: %[[S:.+]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[S]] : f32
// CHECK: memref.store %[[SUM]], %[[Y]][%[[COL]]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @short_column_sum(%x: memref<16x8xf32>, %y: memref<8xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<16x8xf32>, memref<8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<16x8xf32>, %y: memref<8xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : memref<16x8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An operand indexed by the outer dim alone (a per-row scale) is one
// scalar per vector group: it does not stop the vector path, is not in the
// alignment check, and is loaded once for the 4 lanes.
// CHECK-LABEL: func.func @row_bias(
// CHECK: gpu.func @kiln_kernel_0(%[[X:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x8xf32>)
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: scf.if
// CHECK: %[[I:.+]] = arith.divui
// CHECK: %[[V:.+]] = vector.load %[[X]][%[[I]], %{{.+}}]
// CHECK: %[[S:.+]] = memref.load %[[B]][%[[I]]] : memref<4xf32>
// CHECK: %[[E0:.+]] = vector.extract %[[V]][0]
// CHECK: arith.mulf %[[E0]], %[[S]] : f32
// CHECK: %[[E1:.+]] = vector.extract %[[V]][1]
// CHECK: arith.mulf %[[E1]], %[[S]] : f32
// CHECK: vector.store %{{.+}}, %[[Y]]
// CHECK: } else {
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_bias(%x: memref<4x8xf32>, %b: memref<4xf32>, %y: memref<4x8xf32>) {
  call @kiln_kernel_0(%x, %b, %y) : (memref<4x8xf32>, memref<4xf32>, memref<4x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8xf32>, %b: memref<4xf32>, %y: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}
