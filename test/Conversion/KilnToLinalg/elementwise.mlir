// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file | FileCheck %s

// Each elementwise op is one parallel linalg.generic over identity maps.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @unary_f32
// CHECK: %[[E:.+]] = bufferization.alloc_tensor() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.tanh
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.divf
// CHECK: arith.maximumf
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.absf
// CHECK: math.sin
// CHECK: math.cos
// CHECK: arith.divf
// CHECK-NOT: kiln.
func.func @unary_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.neg %x : tensor<4x8xf32>
  %1 = kiln.exp %0 : tensor<4x8xf32>
  %2 = kiln.log %1 : tensor<4x8xf32>
  %3 = kiln.tanh %2 : tensor<4x8xf32>
  %4 = kiln.sigmoid %3 : tensor<4x8xf32>
  %5 = kiln.relu %4 : tensor<4x8xf32>
  %6 = kiln.sqrt %5 : tensor<4x8xf32>
  %7 = kiln.rsqrt %6 : tensor<4x8xf32>
  %8 = kiln.abs %7 : tensor<4x8xf32>
  %9 = kiln.sin %8 : tensor<4x8xf32>
  %10 = kiln.cos %9 : tensor<4x8xf32>
  %11 = kiln.reciprocal %10 : tensor<4x8xf32>
  return %11 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @binary_f64
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16xf64>, tensor<16xf64>) outs(%{{.*}} : tensor<16xf64>)
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.subf {{.*}} : f64
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.divf {{.*}} : f64
// CHECK: arith.maximumf {{.*}} : f64
// CHECK: arith.minimumf {{.*}} : f64
// CHECK: %[[ABS:.+]] = math.absf
// CHECK: math.powf %[[ABS]], {{.*}} : f64
// CHECK: math.floor
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @binary_f64(%x: tensor<16xf64>, %y: tensor<16xf64>) -> tensor<16xf64> {
  %0 = kiln.add %x, %y : tensor<16xf64>
  %1 = kiln.sub %0, %y : tensor<16xf64>
  %2 = kiln.mul %1, %y : tensor<16xf64>
  %3 = kiln.div %2, %y : tensor<16xf64>
  %4 = kiln.max %3, %y : tensor<16xf64>
  %5 = kiln.min %4, %y : tensor<16xf64>
  %6 = kiln.pow %5, %y : tensor<16xf64>
  return %6 : tensor<16xf64>
}

// -----

// f16 and bf16 compute in f32.
// CHECK-LABEL: func @half_computes_in_f32
// CHECK: ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WA:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[WB:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[WA]], %[[WB]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: ^bb0(%[[C:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WC:.+]] = arith.extf %[[C]] : bf16 to f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[WC]] : f32
// CHECK-NEXT: arith.truncf %[[E]] : f32 to bf16
func.func @half_computes_in_f32(%x: tensor<8xf16>, %y: tensor<8xf16>, %z: tensor<8xbf16>) -> (tensor<8xf16>, tensor<8xbf16>) {
  %0 = kiln.mul %x, %y : tensor<8xf16>
  %1 = kiln.exp %z : tensor<8xbf16>
  return %0, %1 : tensor<8xf16>, tensor<8xbf16>
}

// -----

// cmp is an ordered compare (ne is unordered, true on NaN); select is
// arith.select.
// CHECK-LABEL: func @cmp_select
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: ^bb0(%[[P:.+]]: i1, %[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.select %[[P]], %[[A]], %[[B]] : f32
func.func @cmp_select(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %eq = kiln.cmp eq, %x, %y : tensor<4xf32>
  %ne = kiln.cmp ne, %x, %y : tensor<4xf32>
  %lt = kiln.cmp lt, %x, %y : tensor<4xf32>
  %le = kiln.cmp le, %x, %y : tensor<4xf32>
  %gt = kiln.cmp gt, %x, %y : tensor<4xf32>
  %ge = kiln.cmp ge, %x, %y : tensor<4xf32>
  %s = kiln.select %ge, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %eq, %ne, %lt, %le, %gt, %s : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// -----

// convert: extf, truncf, f16 <-> bf16 through f32, i1 -> float with uitofp,
// float -> i1 as x != 0.
// CHECK-LABEL: func @convert
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf {{.*}} : f32 to bf16
// CHECK: arith.uitofp {{.*}} : i1 to f32
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.cmpf une, %{{.*}}, %[[Z]] : f32
func.func @convert(%x: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf64>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi1>) {
  %0 = kiln.convert %x : tensor<4xf32> -> tensor<4xf64>
  %1 = kiln.convert %x : tensor<4xf32> -> tensor<4xf16>
  %2 = kiln.convert %1 : tensor<4xf16> -> tensor<4xbf16>
  %3 = kiln.convert %p : tensor<4xi1> -> tensor<4xf32>
  %4 = kiln.convert %x : tensor<4xf32> -> tensor<4xi1>
  return %0, %2, %3, %4 : tensor<4xf64>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Dynamic dims take their size from the operand.
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %[[C0]] : tensor<?x8xf32>
// CHECK: bufferization.alloc_tensor(%[[D]]) : tensor<?x8xf32>
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = kiln.tanh %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
