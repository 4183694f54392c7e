// RUN: kiln-opt %s -kiln-compact-kernel-abi -split-input-file | FileCheck %s

// A buffer with static sizes and strides becomes one pointer: the caller
// adds the offset, and inside the kernel the offset is 0 and the sizes and
// strides are constants. The descriptor fields no call reads any more are
// erased from the (optnone) caller.
// CHECK-LABEL: llvm.func @host
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %[[OFF:.+]]: i64)
// CHECK-NOT: llvm.extractvalue %{{.+}}[0]
// CHECK: %[[ALIGNED:.+]] = llvm.extractvalue %{{.+}}[1]
// CHECK-NEXT: %[[P:.+]] = llvm.getelementptr %[[ALIGNED]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.call @kiln_kernel_0(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-SAME: (%[[A:[^:]+]]: !llvm.ptr)
// CHECK-DAG: %[[ZERO:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[ROWS:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-DAG: %[[ROW_STRIDE:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK: llvm.getelementptr %[[A]][%[[ZERO]]]
// CHECK: llvm.mul %[[ROWS]], %[[ROW_STRIDE]]
llvm.func @host(%base: !llvm.ptr, %off: i64) {
  %c1 = llvm.mlir.constant(1 : index) : i64
  %c4 = llvm.mlir.constant(4 : index) : i64
  %c8 = llvm.mlir.constant(8 : index) : i64
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %1 = llvm.insertvalue %base, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %2 = llvm.insertvalue %base, %1[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %3 = llvm.extractvalue %2[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %4 = llvm.extractvalue %2[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  llvm.call @kiln_kernel_0(%3, %4, %off, %c4, %c8, %c8, %c1) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
  llvm.return
}
llvm.func @kiln_kernel_0(%alloc: !llvm.ptr, %aligned: !llvm.ptr, %off: i64, %rows: i64, %cols: i64, %rowStride: i64, %colStride: i64) attributes {kiln.kernel, kiln.kernel_args = [memref<4x8xf32, strided<[8, 1], offset: ?>>]} {
  %p = llvm.getelementptr %aligned[%off] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %n = llvm.mul %rows, %rowStride : i64
  %f = llvm.sitofp %n : i64 to f32
  llvm.store %f, %p : f32, !llvm.ptr
  llvm.return
}

// -----

// Buffers with a dynamic size and scalars pass as they were; the others
// (a rank-0 one here) are still compacted.
// CHECK-LABEL: llvm.func @host
// CHECK: %[[P:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK: llvm.call @kiln_kernel_0(%arg0, %arg0, %arg1, %arg2, %arg1, %arg3, %[[P]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, f64, !llvm.ptr) -> ()
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: f64, %{{.+}}: !llvm.ptr)
llvm.func @host(%base: !llvm.ptr, %off: i64, %n: i64, %x: f64) {
  llvm.call @kiln_kernel_0(%base, %base, %off, %n, %off, %x, %base, %base, %off) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, f64, !llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
llvm.func @kiln_kernel_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64, %x: f64, %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64) attributes {kiln.kernel, kiln.kernel_args = [memref<?xf64, strided<[1], offset: ?>>, f64, memref<f64, strided<[], offset: ?>>]} {
  %p = llvm.getelementptr %b1[%b2] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  llvm.store %x, %p : f64, !llvm.ptr
  llvm.return
}

// -----

// A kernel whose address is taken keeps its signature.
// CHECK-LABEL: llvm.func @host
// CHECK: llvm.call @kiln_kernel_0(%arg0, %arg0, %arg1)
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64)
llvm.func @host(%base: !llvm.ptr, %off: i64) -> !llvm.ptr {
  llvm.call @kiln_kernel_0(%base, %base, %off) : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %f = llvm.mlir.addressof @kiln_kernel_0 : !llvm.ptr
  llvm.return %f : !llvm.ptr
}
llvm.func @kiln_kernel_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64) attributes {kiln.kernel, kiln.kernel_args = [memref<f32, strided<[], offset: ?>>]} {
  llvm.return
}

// -----

// A recorded signature that does not explain the LLVM one is ignored.
// CHECK-LABEL: llvm.func @host
// CHECK: llvm.call @kiln_kernel_0(%arg0, %arg0, %arg1)
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64)
llvm.func @host(%base: !llvm.ptr, %off: i64) {
  llvm.call @kiln_kernel_0(%base, %base, %off) : (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
llvm.func @kiln_kernel_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64) attributes {kiln.kernel, kiln.kernel_args = [memref<4xf32, strided<[1], offset: ?>>]} {
  llvm.return
}
