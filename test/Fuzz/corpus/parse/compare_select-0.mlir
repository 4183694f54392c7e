func.func @cmp_f32(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xi1>,
        tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xi1>) {
  %m = kiln.max %x, %y : tensor<64x1000xf32>
  %0 = kiln.cmp eq, %x, %m : tensor<64x1000xf32>
  %1 = kiln.cmp ne, %x, %m : tensor<64x1000xf32>
  %2 = kiln.cmp lt, %x, %y : tensor<64x1000xf32>
  %3 = kiln.cmp le, %x, %m : tensor<64x1000xf32>
  %4 = kiln.cmp gt, %x, %y : tensor<64x1000xf32>
  %5 = kiln.cmp ge, %m, %y : tensor<64x1000xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xi1>,
        tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xi1>
}

func.func @cmp_small(%x: tensor<5x3xf32>, %y: tensor<5x3xf32>)
    -> (tensor<5x3xi1>, tensor<5x3xi1>, tensor<5x3xi1>, tensor<5x3xi1>,
        tensor<5x3xi1>, tensor<5x3xi1>) {
  %m = kiln.min %x, %y : tensor<5x3xf32>
  %0 = kiln.cmp eq, %m, %y : tensor<5x3xf32>
  %1 = kiln.cmp ne, %m, %y : tensor<5x3xf32>
  %2 = kiln.cmp lt, %m, %x : tensor<5x3xf32>
  %3 = kiln.cmp le, %m, %x : tensor<5x3xf32>
  %4 = kiln.cmp gt, %x, %m : tensor<5x3xf32>
  %5 = kiln.cmp ge, %x, %m : tensor<5x3xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<5x3xi1>, tensor<5x3xi1>, tensor<5x3xi1>, tensor<5x3xi1>,
        tensor<5x3xi1>, tensor<5x3xi1>
}

func.func @cmp_f64(%x: tensor<17x129xf64>, %y: tensor<17x129xf64>)
    -> (tensor<17x129xi1>, tensor<17x129xi1>, tensor<17x129xi1>,
        tensor<17x129xi1>, tensor<17x129xi1>, tensor<17x129xi1>) {
  %m = kiln.max %x, %y : tensor<17x129xf64>
  %0 = kiln.cmp eq, %x, %m : tensor<17x129xf64>
  %1 = kiln.cmp ne, %x, %m : tensor<17x129xf64>
  %2 = kiln.cmp lt, %x, %y : tensor<17x129xf64>
  %3 = kiln.cmp le, %x, %m : tensor<17x129xf64>
  %4 = kiln.cmp gt, %x, %y : tensor<17x129xf64>
  %5 = kiln.cmp ge, %m, %y : tensor<17x129xf64>
  return %0, %1, %2, %3, %4, %5
      : tensor<17x129xi1>, tensor<17x129xi1>, tensor<17x129xi1>,
        tensor<17x129xi1>, tensor<17x129xi1>, tensor<17x129xi1>
}

func.func @cmp_f16(%x: tensor<16x100xf16>, %y: tensor<16x100xf16>)
    -> (tensor<16x100xi1>, tensor<16x100xi1>, tensor<16x100xi1>,
        tensor<16x100xf16>) {
  %m = kiln.max %x, %y : tensor<16x100xf16>
  %0 = kiln.cmp eq, %x, %m : tensor<16x100xf16>
  %1 = kiln.cmp lt, %x, %y : tensor<16x100xf16>
  %2 = kiln.cmp ge, %x, %y : tensor<16x100xf16>
  %3 = kiln.select %1, %y, %x : tensor<16x100xi1>, tensor<16x100xf16>
  return %0, %1, %2, %3
      : tensor<16x100xi1>, tensor<16x100xi1>, tensor<16x100xi1>,
        tensor<16x100xf16>
}

func.func @select_f32(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<64x1000xf32>
  %hi = kiln.constant dense<0.5> : tensor<64x1000xf32>
  %pos = kiln.cmp gt, %x, %zero : tensor<64x1000xf32>
  %0 = kiln.select %pos, %x, %zero : tensor<64x1000xi1>, tensor<64x1000xf32>
  %big = kiln.cmp ge, %x, %hi : tensor<64x1000xf32>
  %1 = kiln.select %big, %hi, %x : tensor<64x1000xi1>, tensor<64x1000xf32>
  %lt = kiln.cmp lt, %x, %y : tensor<64x1000xf32>
  %e = kiln.exp %y : tensor<64x1000xf32>
  %s = kiln.sin %x : tensor<64x1000xf32>
  %2 = kiln.select %lt, %e, %s : tensor<64x1000xi1>, tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xf32>, tensor<64x1000xf32>,
      tensor<64x1000xf32>
}

func.func @select_i1_arg(%p: tensor<37x65xi1>, %a: tensor<37x65xf32>,
                         %b: tensor<37x65xf32>, %c: tensor<37x65xf64>,
                         %d: tensor<37x65xf64>)
    -> (tensor<37x65xf32>, tensor<37x65xf64>) {
  %0 = kiln.select %p, %a, %b : tensor<37x65xi1>, tensor<37x65xf32>
  %1 = kiln.select %p, %c, %d : tensor<37x65xi1>, tensor<37x65xf64>
  return %0, %1 : tensor<37x65xf32>, tensor<37x65xf64>
}

func.func @select_i1_values(%p: tensor<9x31xi1>, %a: tensor<9x31xi1>,
                            %x: tensor<9x31xf32>) -> tensor<9x31xi1> {
  %zero = kiln.constant dense<0.0> : tensor<9x31xf32>
  %b = kiln.cmp lt, %x, %zero : tensor<9x31xf32>
  %0 = kiln.select %p, %a, %b : tensor<9x31xi1>, tensor<9x31xi1>
  return %0 : tensor<9x31xi1>
}

func.func @cmp_generic(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>) {
  %lt = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %ne = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate ne>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %s = "kiln.select"(%lt, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %lt, %ne, %s : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>
}

func.func @cmp_known()
    -> (tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>,
        tensor<6xi1>, tensor<6xi1>, tensor<6xf32>) {
  %a = kiln.constant dense<[1.0, 2.0, 3.0, 0x7FC00000, -0.0, 0xFF800000]> : tensor<6xf32>
  %b = kiln.constant dense<[2.0, 2.0, 2.0, 2.0, 0.0, 0x7F800000]> : tensor<6xf32>
  %ten = kiln.constant dense<10.0> : tensor<6xf32>
  %0 = kiln.cmp eq, %a, %b : tensor<6xf32>
  %1 = kiln.cmp ne, %a, %b : tensor<6xf32>
  %2 = kiln.cmp lt, %a, %b : tensor<6xf32>
  %3 = kiln.cmp le, %a, %b : tensor<6xf32>
  %4 = kiln.cmp gt, %a, %b : tensor<6xf32>
  %5 = kiln.cmp ge, %a, %b : tensor<6xf32>
  %6 = kiln.select %3, %ten, %b : tensor<6xi1>, tensor<6xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>,
        tensor<6xi1>, tensor<6xi1>, tensor<6xf32>
}
