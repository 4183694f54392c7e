#!/usr/bin/env python3
"""Draw a kiln fusion graph as one self-contained HTML page.

Input: the JSON that `kiln-opt -kiln-fuse -kiln-export-fusion-graph=FILE`
writes. Output: an HTML page with one inline SVG per function. Ops are
boxes laid out in layers (longest path from the inputs); every fusion group
is a tinted rounded rectangle drawn around its ops, and ops of one group
share its colour, so what fused is visible at a glance. No scripts, no
external resources.

Usage: fusion_viz.py GRAPH.json -o graph.html
"""
import argparse
import html
import json
import sys

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
           "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"]
NODE_W, NODE_H, GAP_X, GAP_Y, PAD = 150, 34, 40, 18, 12


def layout(fn):
    nodes = {n["id"]: n for n in fn["nodes"]}
    preds = {i: [] for i in nodes}
    for e in fn["edges"]:
        preds[e["to"]].append(e["from"])
    layer = {}
    for i in sorted(nodes):  # ids are in program order: producers first
        layer[i] = 1 + max((layer[p] for p in preds[i]), default=-1)
    # Within a layer, keep members of one group together.
    columns = {}
    for i in sorted(nodes, key=lambda i: (layer[i], nodes[i].get("group", 1 << 30), i)):
        columns.setdefault(layer[i], []).append(i)
    # Ops outside groups go in a band below every group, so that no group's
    # box is drawn around an op that is not in it.
    grouped_rows = max((sum(1 for i in ids if "group" in nodes[i])
                        for ids in columns.values()), default=0)
    pos = {}
    for col, ids in columns.items():
        inside = [i for i in ids if "group" in nodes[i]]
        outside = [i for i in ids if "group" not in nodes[i]]
        rows = list(enumerate(inside)) + [
            (grouped_rows + 1 + k, i) for k, i in enumerate(outside)]
        for row, i in rows:
            pos[i] = (PAD * 3 + col * (NODE_W + GAP_X),
                      PAD * 3 + 14 + row * (NODE_H + GAP_Y))
    return nodes, pos


def svg_for(fn):
    nodes, pos = layout(fn)
    width = max((x for x, _ in pos.values()), default=0) + NODE_W + PAD * 4
    height = max((y for _, y in pos.values()), default=0) + NODE_H + PAD * 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="monospace" font-size="11">']
    out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
               'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
               '<path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>')
    # Groups first, behind everything.
    for g in fn["groups"]:
        color = PALETTE[g["id"] % len(PALETTE)]
        xs = [pos[n][0] for n in g["nodes"]]
        ys = [pos[n][1] for n in g["nodes"]]
        x0, y0 = min(xs) - PAD, min(ys) - PAD - 14
        x1, y1 = max(xs) + NODE_W + PAD, max(ys) + NODE_H + PAD
        out.append(f'<rect class="group" x="{x0}" y="{y0}" width="{x1 - x0}" '
                   f'height="{y1 - y0}" rx="14" fill="{color}" fill-opacity="0.13" '
                   f'stroke="{color}" stroke-width="2.5"/>')
        out.append(f'<text x="{x0 + 10}" y="{y0 + 13}" fill="{color}" '
                   f'font-weight="bold">group {g["id"]}: {len(g["nodes"])} ops, '
                   f'{g["inputs"]} in, {g["outputs"]} out</text>')
    for e in fn["edges"]:
        (x0, y0), (x1, y1) = pos[e["from"]], pos[e["to"]]
        out.append(f'<line x1="{x0 + NODE_W}" y1="{y0 + NODE_H / 2}" x2="{x1}" '
                   f'y2="{y1 + NODE_H / 2}" stroke="#666" stroke-width="1.2" '
                   f'marker-end="url(#arrow)"/>')
    for i, n in nodes.items():
        x, y = pos[i]
        group = n.get("group")
        color = PALETTE[group % len(PALETTE)] if group is not None else "#888"
        fill = "#ffffff" if group is not None else "#eeeeee"
        label = n["op"].replace("kiln.", "")
        out.append(f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" '
                   f'rx="5" fill="{fill}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{x + 6}" y="{y + 14}" font-weight="bold">'
                   f'{html.escape(label)}</text>')
        out.append(f'<text x="{x + 6}" y="{y + 27}" fill="#555">'
                   f'{html.escape(n.get("type", ""))[:24]}</text>')
    out.append("</svg>")
    return "\n".join(out)


def render(graph):
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
             "<title>kiln fusion graph</title>",
             "<style>body{font-family:sans-serif;margin:20px}"
             "h2{margin-top:28px}.legend{color:#555}</style></head><body>",
             "<h1>kiln fusion graph</h1>",
             '<p class="legend">Each tinted box is one fusion group (one '
             "compiled kernel); grey ops stay outside groups (matmuls, "
             "views, constants). Arrows follow the data.</p>"]
    for fn in graph["functions"]:
        parts.append(f"<h2>@{html.escape(fn['name'])}: {len(fn['nodes'])} ops, "
                     f"{len(fn['groups'])} groups</h2>")
        parts.append(svg_for(fn))
    parts.append("</body></html>")
    return "\n".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    try:
        with open(args.graph) as f:
            graph = json.load(f)
        if "functions" not in graph:
            raise ValueError("no 'functions' key")
    except (OSError, ValueError) as e:
        print(f"fusion_viz: error: cannot read {args.graph}: {e}", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(render(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
