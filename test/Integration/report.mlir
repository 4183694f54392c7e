// --report prints one JSON line about the compiled entry. The file has
// several functions; only the entry (and what it calls) counts.
//
// (fusion_groups once counted the groups of every function in the module.)

// RUN: kiln-run %s --entry one_group --random-inputs 1 --repeat 3 --report \
// RUN:   | %host_python -c "import json, sys; d = json.loads(sys.stdin.read().splitlines()[-1]); print('backend', d['backend']); print('repeat', d.get('repeat')); print('outputs', d.get('outputs')); print('fusion_groups', d['fusion_groups']); print('timings', d['compile_ms'] >= 0 and d['run_ms'] >= 0); print('launches', d['kernel_launches'] >= 1)" \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: kiln-run %s --entry no_group --random-inputs 1 --report \
// RUN:   | %host_python -c "import json, sys; d = json.loads(sys.stdin.read().splitlines()[-1]); print('fusion_groups', d['fusion_groups'])" \
// RUN:   | FileCheck %s --check-prefix=NONE

// ONE:      backend cpu
// ONE-NEXT: repeat 3
// ONE-NEXT: outputs 2
// ONE-NEXT: fusion_groups 1
// ONE-NEXT: timings True
// ONE-NEXT: launches True
func.func @one_group(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %s, %t = kiln.fusion_group %x, %y : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  ^bb0(%a: tensor<64x1000xf32>, %b: tensor<64x1000xf32>):
    %0 = kiln.add %a, %b : tensor<64x1000xf32>
    %1 = kiln.mul %a, %b : tensor<64x1000xf32>
    kiln.yield %0, %1 : tensor<64x1000xf32>, tensor<64x1000xf32>
  }
  return %s, %t : tensor<64x1000xf32>, tensor<64x1000xf32>
}

// NONE: fusion_groups 0
func.func @no_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// Other functions of the module, never called by the entries above.
func.func @other(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s, %t = kiln.fusion_group %x, %y : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %0 = kiln.sub %a, %b : tensor<4xf32>
    %1 = kiln.div %a, %b : tensor<4xf32>
    kiln.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %u = kiln.fusion_group %s, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %0 = kiln.max %a, %b : tensor<4xf32>
    kiln.yield %0 : tensor<4xf32>
  }
  %v = kiln.fusion_group %u : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = kiln.exp %a : tensor<4xf32>
    kiln.yield %0 : tensor<4xf32>
  }
  return %u, %v : tensor<4xf32>, tensor<4xf32>
}
