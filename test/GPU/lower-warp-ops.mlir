// RUN: kiln-opt %s -pass-pipeline='builtin.module(gpu.module(kiln-lower-warp-ops))' | FileCheck %s
// RUN: kiln-opt %s -pass-pipeline='builtin.module(gpu.module(kiln-lower-warp-ops{warp-size=8}))' | FileCheck %s --check-prefix=EIGHT

// gpu.subgroup_size becomes the warp size, and each gpu.subgroup_reduce a
// butterfly of xor shuffles over the warp: log2(warp-size) steps with
// offsets 1, 2, 4, ..., combining with the reduction's own op (maximumf
// keeps NaN, as kiln.max does).
// CHECK-LABEL: gpu.func @k
// CHECK-NOT: gpu.subgroup
// CHECK-DAG: %[[W:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[WI:.+]] = arith.constant 32 : index
// CHECK: memref.store %[[WI]]
// CHECK: %[[S1:.+]], %{{.+}} = gpu.shuffle  xor %{{.+}}, %{{.+}}, %[[W]] : f32
// CHECK: arith.addf %{{.+}}, %[[S1]] : f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: arith.maximumf
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
// EIGHT-DAG: arith.constant 8 : index
// EIGHT-COUNT-3: arith.addf
// EIGHT-COUNT-3: arith.maximumf
// EIGHT-NOT: gpu.shuffle
gpu.module @kernels {
  gpu.func @k(%x: f32, %out: memref<1xindex>, %r: memref<1xf32>) kernel {
    %n = gpu.subgroup_size : index
    %c0 = arith.constant 0 : index
    memref.store %n, %out[%c0] : memref<1xindex>
    %s = gpu.subgroup_reduce add %x uniform : (f32) -> f32
    %m = gpu.subgroup_reduce maximumf %s uniform : (f32) -> f32
    memref.store %m, %r[%c0] : memref<1xf32>
    gpu.return
  }
}
