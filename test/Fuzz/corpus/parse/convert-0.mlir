func.func @f32_f64(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf64>, tensor<64x1000xf32>, tensor<64x1000xf64>) {
  %0 = kiln.convert %x : tensor<64x1000xf32> -> tensor<64x1000xf64>
  %e = kiln.exp %0 : tensor<64x1000xf64>
  %1 = kiln.convert %e : tensor<64x1000xf64> -> tensor<64x1000xf32>
  %2 = kiln.mul %0, %e : tensor<64x1000xf64>
  return %0, %1, %2 : tensor<64x1000xf64>, tensor<64x1000xf32>,
      tensor<64x1000xf64>
}

func.func @f64_f32(%x: tensor<13x77xf64>) -> (tensor<13x77xf32>, tensor<13x77xf32>) {
  %0 = kiln.convert %x : tensor<13x77xf64> -> tensor<13x77xf32>
  %1 = kiln.tanh %0 : tensor<13x77xf32>
  return %0, %1 : tensor<13x77xf32>, tensor<13x77xf32>
}

func.func @f16_roundtrip(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf16>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %h = kiln.convert %x : tensor<64x1000xf32> -> tensor<64x1000xf16>
  %f = kiln.convert %h : tensor<64x1000xf16> -> tensor<64x1000xf32>
  %d = kiln.sub %x, %f : tensor<64x1000xf32>
  return %h, %f, %d : tensor<64x1000xf16>, tensor<64x1000xf32>,
      tensor<64x1000xf32>
}

func.func @bf16(%x: tensor<32x333xf32>)
    -> (tensor<32x333xbf16>, tensor<32x333xf32>, tensor<32x333xf16>,
        tensor<32x333xf64>) {
  %b = kiln.convert %x : tensor<32x333xf32> -> tensor<32x333xbf16>
  %f = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf32>
  %h = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf16>
  %d = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf64>
  return %b, %f, %h, %d : tensor<32x333xbf16>, tensor<32x333xf32>,
      tensor<32x333xf16>, tensor<32x333xf64>
}

func.func @i1_to_float(%p: tensor<50x70xi1>, %x: tensor<50x70xf32>)
    -> (tensor<50x70xf32>, tensor<50x70xf64>, tensor<50x70xf16>,
        tensor<50x70xf32>) {
  %0 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf32>
  %1 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf64>
  %2 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf16>
  %zero = kiln.constant dense<0.0> : tensor<50x70xf32>
  %pos = kiln.cmp gt, %x, %zero : tensor<50x70xf32>
  %mask = kiln.convert %pos : tensor<50x70xi1> -> tensor<50x70xf32>
  %3 = kiln.mul %mask, %x : tensor<50x70xf32>
  return %0, %1, %2, %3 : tensor<50x70xf32>, tensor<50x70xf64>,
      tensor<50x70xf16>, tensor<50x70xf32>
}

func.func @float_to_i1(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf64>)
    -> (tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xf32>) {
  %r = kiln.relu %x : tensor<64x1000xf32>
  %0 = kiln.convert %r : tensor<64x1000xf32> -> tensor<64x1000xi1>
  %ry = kiln.relu %y : tensor<64x1000xf64>
  %1 = kiln.convert %ry : tensor<64x1000xf64> -> tensor<64x1000xi1>
  %2 = kiln.select %0, %x, %r : tensor<64x1000xi1>, tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xi1>, tensor<64x1000xi1>,
      tensor<64x1000xf32>
}

func.func @mixed_precision(%x: tensor<128x96xbf16>, %y: tensor<128x96xf16>)
    -> (tensor<128x96xbf16>, tensor<128x96xf32>) {
  %xf = kiln.convert %x : tensor<128x96xbf16> -> tensor<128x96xf32>
  %yf = kiln.convert %y : tensor<128x96xf16> -> tensor<128x96xf32>
  %s = kiln.mul %xf, %yf : tensor<128x96xf32>
  %t = kiln.tanh %s : tensor<128x96xf32>
  %0 = kiln.convert %t : tensor<128x96xf32> -> tensor<128x96xbf16>
  %1 = kiln.add %t, %yf : tensor<128x96xf32>
  return %0, %1 : tensor<128x96xbf16>, tensor<128x96xf32>
}

func.func @convert_generic(%x: tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf64>) {
  %h = "kiln.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %d = "kiln.convert"(%h) : (tensor<4x8xf16>) -> tensor<4x8xf64>
  return %h, %d : tensor<4x8xf16>, tensor<4x8xf64>
}

func.func @convert_known()
    -> (tensor<4xbf16>, tensor<6xf32>, tensor<4xf32>, tensor<5xi1>,
        tensor<2xf64>, tensor<2xf32>, tensor<2xf64>) {
  %b = kiln.constant dense<[1.00390625, 1.01171875, 1.0039072036743164, -2.0]> : tensor<4xf32>
  %0 = kiln.convert %b : tensor<4xf32> -> tensor<4xbf16>
  %h = kiln.constant dense<[0.3333333432674408, 65504.0, 65520.0, 1.0e-8, 2049.0, 2051.0]> : tensor<6xf32>
  %h16 = kiln.convert %h : tensor<6xf32> -> tensor<6xf16>
  %1 = kiln.convert %h16 : tensor<6xf16> -> tensor<6xf32>
  %p = kiln.constant dense<[true, false, false, true]> : tensor<4xi1>
  %2 = kiln.convert %p : tensor<4xi1> -> tensor<4xf32>
  %z = kiln.constant dense<[0.0, -0.0, 1.5, 0x7FC00000, -2.0]> : tensor<5xf32>
  %3 = kiln.convert %z : tensor<5xf32> -> tensor<5xi1>
  %s = kiln.constant dense<[0.1, 16777217.0]> : tensor<2xf32>
  %4 = kiln.convert %s : tensor<2xf32> -> tensor<2xf64>
  %d = kiln.constant dense<[0.1, 16777217.0]> : tensor<2xf64>
  %5 = kiln.convert %d : tensor<2xf64> -> tensor<2xf32>
  %6 = kiln.convert %5 : tensor<2xf32> -> tensor<2xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xbf16>, tensor<6xf32>,
      tensor<4xf32>, tensor<5xi1>, tensor<2xf64>, tensor<2xf32>, tensor<2xf64>
}
