// RUN: kiln-opt %s -kiln-fuse -kiln-export-fusion-graph=%t.json -o /dev/null
// RUN: %host_python -c "import json; g = json.load(open('%t.json'))['functions'][0]; print(g['name'], len(g['nodes']), len(g['edges']), len(g['groups'])); print('group', sorted(g['groups'][0]['nodes']), g['groups'][0]['inputs'], g['groups'][0]['outputs']); print('outside', [n['op'] for n in g['nodes'] if 'group' not in n]); print('edge into matmul', any(e['to'] == [n['id'] for n in g['nodes'] if n['op'] == 'kiln.matmul'][0] for e in g['edges']))" | FileCheck %s
// RUN: %host_python %kiln_src_root/python/kiln/tools/fusion_viz.py %t.json -o %t.html
// RUN: FileCheck %s --check-prefix=HTML < %t.html
// RUN: not kiln-opt %s -kiln-export-fusion-graph -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not %host_python %kiln_src_root/python/kiln/tools/fusion_viz.py %t.missing.json -o %t.html 2>&1 | FileCheck %s --check-prefix=BADINPUT

// Nodes are the ops (group members inside), edges the uses between them
// (a use of a group result comes from the op that produced it), groups the
// membership (neg is a group of its own).
// CHECK: f 4 3 2
// CHECK-NEXT: group [0, 1] 1 1
// CHECK-NEXT: outside ['kiln.matmul']
// CHECK-NEXT: edge into matmul True
// HTML: <svg
// HTML: class="group"
// HTML: group 0: 2 ops, 1 in, 1 out
// HTML: matmul
// NOFILE: -kiln-export-fusion-graph needs a file
// BADINPUT: fusion_viz: error: cannot read
func.func @f(%a: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = kiln.tanh %a : tensor<4x4xf32>
  %e = kiln.exp %t : tensor<4x4xf32>
  %m = kiln.matmul %e, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %n = "kiln.neg"(%m) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
