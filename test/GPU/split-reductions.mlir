// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu=split-reductions=false | FileCheck %s --check-prefix=WHOLE
// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// A reduction whose outputs are too few to fill the device (fewer than
// 256) and long (32768 elements or more each) is split across the grid:
// each output's elements, flattened, in S parts (the least of 1024,
// length / 4096 and 1024 / outputs), a block per part reducing it into a
// buffer of partials that each call allocates, then a block per output
// combining its S partials with the value it starts from. Values on the
// emulated GPU are in block-reduction-ptx.mlir.

// A whole tensor's sum, 131072 elements: 32 parts of 4096, 32 blocks, then
// one block over the 32 partials, which adds the fill value last.
// CHECK-LABEL: func.func @total_sum(
// CHECK: %[[PARTIALS:.+]] = memref.alloc() : memref<32xf32>
// CHECK: %[[PARTS:.+]] = arith.constant 32 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0 blocks in (%[[PARTS]], %{{.+}}, %{{.+}}) threads in (%c256, {{.+}} args(%{{.+}} : memref<256x512xf32>, %{{.+}} : memref<f32>, %[[PARTIALS]] : memref<32xf32>)
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1 blocks in (%[[ONE]], %{{.+}}, %{{.+}}) threads in (%c256, {{.+}} args(%{{.+}} : memref<256x512xf32>, %{{.+}} : memref<f32>, %[[PARTIALS]] : memref<32xf32>)
// CHECK-NEXT: memref.dealloc %[[PARTIALS]] : memref<32xf32>
// The parts: block u takes elements [u * 4096, u * 4096 + 4096) of the
// flattened 256x512, each of its threads striding by the block.
// CHECK: gpu.func @kiln_kernel_0_0(%[[X:[^:]+]]: memref<256x512xf32>, %{{[^:]+}}: memref<f32>, %[[OUT:[^:]+]]: memref<32xf32>) workgroup(
// CHECK: gpu.grid_dim x
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[BLOCK:.+]] = gpu.block_id x
// CHECK-NEXT: gpu.grid_dim x
// CHECK-NEXT: %[[TID:.+]] = gpu.thread_id x
// CHECK-NEXT: %[[BDIM:.+]] = gpu.block_dim x
// CHECK: scf.for %[[UNIT:.+]] = %[[BLOCK]] to %c32 step %{{.+}} {
// CHECK: %[[PART:.+]] = arith.remui %[[UNIT]], %{{.+}} : index
// CHECK: %[[BEGIN:.+]] = arith.muli %[[PART]], %c4096 : index
// CHECK: %[[FIRST:.+]] = arith.addi %[[BEGIN]], %[[TID]] : index
// CHECK: %[[NEXT:.+]] = arith.addi %[[BEGIN]], %c4096{{.*}} : index
// CHECK: %[[END:.+]] = arith.minui %[[NEXT]], %c131072 : index
// CHECK: %[[SHARE:.+]] = scf.for %{{.+}} = %[[FIRST]] to %[[END]] step %[[BDIM]] iter_args(
// CHECK: memref.load %[[X]]
// CHECK: arith.addf
// CHECK: gpu.subgroup_reduce add %[[SHARE]]
// CHECK: gpu.barrier
// CHECK: %[[TOTAL:.+]] = gpu.subgroup_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[TOTAL]], %[[OUT]][%[[UNIT]]] : memref<32xf32>
// CHECK: gpu.return
// The total: one block over the output's 32 partials.
// CHECK: gpu.func @kiln_kernel_0_1(%{{[^:]+}}: memref<256x512xf32>, %[[Y:[^:]+]]: memref<f32>, %[[IN:[^:]+]]: memref<32xf32>) workgroup(
// CHECK: %[[FILL:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[OUTPUT:.+]] = %{{.+}} to %c1 step %{{.+}} {
// CHECK: %[[BASE:.+]] = arith.muli %[[OUTPUT]], %c32 : index
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %c32{{.*}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32) {
// CHECK: %[[AT:.+]] = arith.addi %[[BASE]], %[[J]] : index
// CHECK: %[[P:.+]] = memref.load %[[IN]][%[[AT]]] : memref<32xf32>
// CHECK: arith.addf %[[P]], %[[ACC]] : f32
// CHECK: gpu.barrier
// CHECK: %[[SUM:.+]] = gpu.subgroup_reduce add
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[FILL]], %[[SUM]] : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[R]], %[[Y]][] : memref<f32>

// Without the option: one launch, one block.
// WHOLE-LABEL: func.func @total_sum(
// WHOLE-NOT: memref.alloc
// WHOLE: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%c1{{(_[0-9]+)?}},
// WHOLE-NOT: gpu.launch_func
// WHOLE: return

// STATS-LABEL: KilnMapKernelsToGpu
// STATS: (S) 5 kiln-gpu-split-reductions
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
func.func @total_sum(%x: memref<256x512xf32>, %y: memref<f32>) {
  call @kiln_kernel_0(%x, %y) : (memref<256x512xf32>, memref<f32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<256x512xf32>, %y: memref<f32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<f32>)
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%x : memref<256x512xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 4 rows of 65536, no fill (each output starts from its own value): 16
// parts of 4096 each, 64 blocks; the total's block per row loads the row's
// output and joins it to the partials' max. Output u's parts are partials
// [u * 16, u * 16 + 16).
// CHECK-LABEL: func.func @few_long_rows(
// CHECK: %[[PARTIALS:.+]] = memref.alloc() : memref<64xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0 blocks in (%c64,
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1 blocks in (%c4,
// CHECK: memref.dealloc %[[PARTIALS]]
// CHECK: gpu.func @kiln_kernel_0_0(
// CHECK: scf.for %[[UNIT:.+]] = %{{.+}} to %c64 step
// CHECK: %[[ROW:.+]] = arith.divui %[[UNIT]], %c16 : index
// CHECK: arith.remui %[[UNIT]], %c16
// CHECK: memref.load %{{.+}}[%[[ROW]], %{{.+}}] : memref<4x65536xf32>
// CHECK: arith.maximumf
// CHECK: gpu.func @kiln_kernel_0_1(%{{[^:]+}}: memref<4x65536xf32>, %[[Y:[^:]+]]: memref<4xf32>, %{{[^:]+}}: memref<64xf32>)
// CHECK: scf.for %[[OUT:.+]] = %{{.+}} to %c4 step
// CHECK: %[[START:.+]] = memref.load %[[Y]][%[[OUT]]] : memref<4xf32>
// CHECK: gpu.barrier
// CHECK: %[[MAX:.+]] = gpu.subgroup_reduce maximumf
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[R:.+]] = arith.maximumf %[[START]], %[[MAX]] : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[R]], %[[Y]][%[[OUT]]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @few_long_rows(%x: memref<4x65536xf32>, %y: memref<4xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<4x65536xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x65536xf32>, %y: memref<4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x65536xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Two long reductions in one kernel, beside an elementwise nest, and a
// nest that reads one of their outputs, the kernel called twice: each
// split adds its partials as an argument (the sum's first, the max's
// next), each call allocates both, and the launches run the parts of both
// with the elementwise nest, then both totals, then the nest that reads a
// total.
// CHECK-LABEL: func.func @two_splits(
// CHECK: %[[SUMS:.+]] = memref.alloc() : memref<32xf32>
// CHECK: %[[MAXES:.+]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0 {{.+}} args({{.+}}, %[[SUMS]] : memref<32xf32>, %[[MAXES]] : memref<16xf32>)
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1 {{.+}} args({{.+}}, %[[SUMS]] : memref<32xf32>, %[[MAXES]] : memref<16xf32>)
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_2 {{.+}} args({{.+}}, %[[SUMS]] : memref<32xf32>, %[[MAXES]] : memref<16xf32>)
// CHECK: memref.dealloc %[[MAXES]]
// CHECK: memref.dealloc %[[SUMS]]
// CHECK: %[[SUMS2:.+]] = memref.alloc() : memref<32xf32>
// CHECK: %[[MAXES2:.+]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0 {{.+}} args({{.+}}, %[[SUMS2]] : memref<32xf32>, %[[MAXES2]] : memref<16xf32>)
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_2
// CHECK: memref.dealloc %[[MAXES2]]
// CHECK: memref.dealloc %[[SUMS2]]
// The parts stage: the sum's parts into argument 6, the max's into 7, and
// the elementwise nest.
// CHECK: gpu.func @kiln_kernel_0_0(%{{[^:]+}}: memref<256x512xf32>, %{{[^:]+}}: memref<f32>, %{{[^:]+}}: memref<4096x16xf32>, %{{[^:]+}}: memref<f32>, %{{[^:]+}}: memref<256x512xf32>, %{{[^:]+}}: memref<256x512xf32>, %[[P0:[^:]+]]: memref<32xf32>, %[[P1:[^:]+]]: memref<16xf32>)
// CHECK: memref.store %{{.+}}, %[[P0]][%{{.+}}] : memref<32xf32>
// CHECK: memref.store %{{.+}}, %[[P1]][%{{.+}}] : memref<16xf32>
// CHECK: math.exp
// CHECK: gpu.return
// The totals stage reads both buffers.
// CHECK: gpu.func @kiln_kernel_0_1(
// CHECK: memref.load %{{.+}}[%{{.+}}] : memref<32xf32>
// CHECK: memref.load %{{.+}}[%{{.+}}] : memref<16xf32>
// CHECK: gpu.return
// CHECK: gpu.func @kiln_kernel_0_2(
// CHECK: memref.load %{{.+}}[] : memref<f32>
// CHECK: gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
func.func @two_splits(%x: memref<256x512xf32>, %sum: memref<f32>, %y: memref<4096x16xf32>, %max: memref<f32>, %e: memref<256x512xf32>, %scaled: memref<256x512xf32>) {
  call @kiln_kernel_0(%x, %sum, %y, %max, %e, %scaled) : (memref<256x512xf32>, memref<f32>, memref<4096x16xf32>, memref<f32>, memref<256x512xf32>, memref<256x512xf32>) -> ()
  call @kiln_kernel_0(%x, %sum, %y, %max, %e, %scaled) : (memref<256x512xf32>, memref<f32>, memref<4096x16xf32>, memref<f32>, memref<256x512xf32>, memref<256x512xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<256x512xf32>, %sum: memref<f32>, %y: memref<4096x16xf32>, %max: memref<f32>, %e: memref<256x512xf32>, %scaled: memref<256x512xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<f32>)
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%x : memref<256x512xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%ninf : f32) outs(%max : memref<f32>)
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%y : memref<4096x16xf32>) outs(%max : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<256x512xf32>) outs(%e : memref<256x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id, #all, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<256x512xf32>, memref<f32>) outs(%scaled : memref<256x512xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %v = arith.divf %a, %t : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// Not split: 256 outputs fill the device (a block each), a reduction
// shorter than 32768 keeps its one block, an output that may share
// elements with the input (two views of one buffer) is left alone, and so
// is a column reduction of fewer than 512 rows (a block per 32 outputs,
// reading rows coalesced; a part would have fewer than 256 rows).
// CHECK-LABEL: func.func @not_split(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%c256{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_1 blocks in (%c1{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_2 blocks in (%c1{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_3 blocks in (%c1{{(_[0-9]+)?}},
// CHECK-NOT: gpu.launch_func
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @not_split(%many: memref<256x32768xf32>, %many_out: memref<256xf32>, %short: memref<1x32767xf32>, %short_out: memref<1xf32>, %buffer: memref<65536xf32>, %columns: memref<511x4xf32>, %column_out: memref<4xf32>) {
  call @kiln_kernel_0(%many, %many_out) : (memref<256x32768xf32>, memref<256xf32>) -> ()
  call @kiln_kernel_1(%short, %short_out) : (memref<1x32767xf32>, memref<1xf32>) -> ()
  %in = memref.expand_shape %buffer [[0, 1]] output_shape [1, 65536] : memref<65536xf32> into memref<1x65536xf32>
  %out = memref.subview %buffer[7] [1] [1] : memref<65536xf32> to memref<1xf32, strided<[1], offset: 7>>
  call @kiln_kernel_2(%in, %out) : (memref<1x65536xf32>, memref<1xf32, strided<[1], offset: 7>>) -> ()
  call @kiln_kernel_3(%columns, %column_out) : (memref<511x4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_3(%x: memref<511x4xf32>, %y: memref<4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<511x4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @kiln_kernel_0(%x: memref<256x32768xf32>, %y: memref<256xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<256x32768xf32>) outs(%y : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @kiln_kernel_1(%x: memref<1x32767xf32>, %y: memref<1xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x32767xf32>) outs(%y : memref<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @kiln_kernel_2(%x: memref<1x65536xf32>, %y: memref<1xf32, strided<[1], offset: 7>>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x65536xf32>) outs(%y : memref<1xf32, strided<[1], offset: 7>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column reduction (a weight gradient: the sum down 65536 rows of 4
// columns, read transposed) is one tile of 32 outputs: one block. Split
// along its rows in 256 parts of 256 (the least of 1024, rows / 256 and
// 1024 / tiles), a block per tile and part writes its totals into
// [part, column] partials; then a thread per column adds its 256 in order
// and joins the value the output starts from (its fill) last.
// CHECK-LABEL: func.func @column_split(
// CHECK: %[[PARTIALS:.+]] = memref.alloc() : memref<1024xf32>
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0 blocks in (%c256{{(_[0-9]+)?}},
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1 blocks in (%c1{{(_[0-9]+)?}},
// CHECK-NEXT: memref.dealloc %[[PARTIALS]] : memref<1024xf32>
// CHECK: gpu.func @kiln_kernel_0_0(%[[X:[^:]+]]: memref<65536x4xf32>, %{{[^:]+}}: memref<4xf32>, %[[OUT:[^:]+]]: memref<1024xf32>)
// CHECK: memref.load %[[X]][%{{.+}}, %{{.+}}] : memref<65536x4xf32>
// CHECK: memref.store %{{.+}}, %[[OUT]][%{{.+}}] : memref<1024xf32>
// CHECK: gpu.func @kiln_kernel_0_1(%{{[^:]+}}: memref<65536x4xf32>, %[[Y:[^:]+]]: memref<4xf32>, %[[IN:[^:]+]]: memref<1024xf32>)
// CHECK: scf.for %[[COL:.+]] = %{{.+}} to %c4 step
// CHECK: %[[SUM:.+]] = scf.for %[[P:.+]] = %c0 to %c256 step %c1 iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32) {
// CHECK: %[[ROW:.+]] = arith.muli %[[P]], %c4
// CHECK: %[[AT:.+]] = arith.addi %[[ROW]], %[[COL]] : index
// CHECK: %[[V:.+]] = memref.load %[[IN]][%[[AT]]] : memref<1024xf32>
// CHECK: arith.addf %[[ACC]], %[[V]] : f32
// CHECK: %[[R:.+]] = arith.addf %{{.+}}, %[[SUM]] : f32
// CHECK: memref.store %[[R]], %[[Y]][%[[COL]]] : memref<4xf32>
func.func @column_split(%x: memref<65536x4xf32>, %y: memref<4xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<65536x4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<65536x4xf32>, %y: memref<4xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<65536x4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
