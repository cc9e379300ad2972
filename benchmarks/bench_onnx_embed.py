"""An experiment (issue 42): the local MiniLM run by onnxruntime instead of numpy, fp32 and int8.

    .venv/bin/pip install onnx onnxruntime   # not astro's dependencies: this only measures
    .venv/bin/python benchmarks/bench_onnx_embed.py [--runs 3] [--threads 1] [--keep-fp32 REGEX]

The ONNX graph is built from the package's safetensors with onnx's helper API (no torch), the same
BERT as local_embed.MiniLM (mean pooling done in numpy); int8 is onnxruntime's dynamic quantisation of
the MatMul weights. The texts are bench_local_embed.py's: the 63 chunks of 1001.0012 embedded whole
(256-token windows, batches of 16 sorted by length, as astro does). Prints the CPU per chunk
(process time, all threads) and the cosine of each chunk's vector against numpy's.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAPER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def build(model: Any, path: Path) -> None:
    """The BERT encoder of `model` (local_embed.MiniLM's weights) as an ONNX graph at `path`."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = model.weights
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: Any) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(x: str, name: str, out: str) -> str:
        weight = const(name + ".wT", np.ascontiguousarray(w[name + ".weight"].T))
        return node("Add", [node("MatMul", [x, weight], out + "_mm"), const(name + ".b", w[name + ".bias"])], out)

    def norm(x: str, name: str, out: str) -> str:
        return node("LayerNormalization", [x, const(name + ".g", w[name + ".weight"]), const(name + ".bb", w[name + ".bias"])],
                    out, axis=-1, epsilon=model.eps)

    width, heads = model.width, model.heads
    size = width // heads
    emb = node("Add", [node("Gather", [const("wemb", w["embeddings.word_embeddings.weight"]), "input_ids"], "we"),
                       node("Gather", [const("pemb", w["embeddings.position_embeddings.weight"]), "position_ids"], "pe")],
               "e1")
    x = norm(node("Add", [emb, const("temb", w["embeddings.token_type_embeddings.weight"][0])], "e2"),
             "embeddings.LayerNorm", "x0")
    split = const("split_shape", np.array([0, 0, heads, size], dtype=np.int64))
    merge = const("merge_shape", np.array([0, 0, width], dtype=np.int64))
    scale = const("scale", np.array(1.0 / math.sqrt(size), dtype=np.float32))
    half, one = const("half", np.array(0.5, dtype=np.float32)), const("one", np.array(1.0, dtype=np.float32))
    root2 = const("root2", np.array(math.sqrt(2.0), dtype=np.float32))
    for n in range(model.layers):
        p = f"encoder.layer.{n}."

        def part(kind: str, perm: list[int], n: int = n, p: str = p, x: str = x) -> str:
            flat = linear(x, p + f"attention.self.{kind}", f"l{n}{kind}")
            return node("Transpose", [node("Reshape", [flat, split], f"l{n}{kind}r")], f"l{n}{kind}t", perm=perm)

        q, k, v = part("query", [0, 2, 1, 3]), part("key", [0, 2, 3, 1]), part("value", [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k], f"l{n}s0"), scale], f"l{n}s1"), "attn_bias"], f"l{n}s2")
        probs = node("Softmax", [scores], f"l{n}p", axis=-1)
        context = node("Reshape", [node("Transpose", [node("MatMul", [probs, v], f"l{n}c0")], f"l{n}c1", perm=[0, 2, 1, 3]),
                                   merge], f"l{n}c2")
        attended = linear(context, p + "attention.output.dense", f"l{n}ao")
        x1 = norm(node("Add", [x, attended], f"l{n}r1"), p + "attention.output.LayerNorm", f"l{n}x1")
        inner = linear(x1, p + "intermediate.dense", f"l{n}i")
        erf = node("Erf", [node("Div", [inner, root2], f"l{n}g0")], f"l{n}g1")
        gelu = node("Mul", [node("Mul", [inner, half], f"l{n}g2"), node("Add", [erf, one], f"l{n}g3")], f"l{n}g4")
        out = linear(gelu, p + "output.dense", f"l{n}o")
        x = norm(node("Add", [x1, out], f"l{n}r2"), p + "output.LayerNorm", f"l{n}x2")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "l"]),
         helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["l"]),
         helper.make_tensor_value_info("attn_bias", TensorProto.FLOAT, ["b", 1, 1, "l"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["b", "l", width])], inits)
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(built, str(path))


def encode_whole(model: Any, session: Any, texts: list[str]) -> Any:
    """local_embed.MiniLM.encode_whole with the encoder run by `session`."""
    import numpy as np

    pieces: list[str] = []
    owners: list[tuple[int, int]] = []
    for index, text in enumerate(texts):
        for window, count in model._windows(text):
            pieces.append(window)
            owners.append((index, count))
    order = sorted(range(len(pieces)), key=lambda n: len(pieces[n]))
    vectors = np.zeros((len(pieces), model.width), dtype=np.float32)
    for start in range(0, len(pieces), 16):
        members = order[start : start + 16]
        encoded = model.tokenizer.encode_batch([pieces[n] for n in members])
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        bias = ((1.0 - mask) * np.float32(-1e4))[:, None, None, :]
        (hidden,) = session.run(None, {"input_ids": ids, "position_ids": np.arange(ids.shape[1], dtype=np.int64),
                                       "attn_bias": bias})
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        vectors[members] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    out = np.zeros((len(texts), model.width), dtype=np.float32)
    for (index, count), vector in zip(owners, vectors):
        out[index] += vector * count
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def measure(label: str, run: Any, texts: list[str], runs: int, reference: Any) -> None:
    import numpy as np

    vectors = run(texts)  # warm-up
    cpus, walls = [], []
    for _ in range(runs):
        began, cpu = time.perf_counter(), time.process_time()
        vectors = run(texts)
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)
    cosine = (vectors * reference).sum(axis=1)
    print(f"{label}: {statistics.median(cpus) / len(texts) * 1000:.0f} CPU-ms a chunk, "
          f"{statistics.median(walls):.2f} s wall (median of {runs}); cosine to numpy min {float(np.min(cosine)):.5f}, "
          f"median {float(np.median(cosine)):.5f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep-fp32", help="a regex of product nodes left in fp32 (l3o_mm: layer 3's FFN output)")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime's intra-op threads (and BLAS's)")
    args = parser.parse_args()
    import os

    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from astro_cli.research.library.parse import pdf_chunks
    from astro_cli.research.search.local_embed import MiniLM, model_folder
    from astro_cli.research.text.pdfread import read_pages

    chunks, _ = pdf_chunks(read_pages(PAPER), 1200)
    texts = [chunk.text for chunk in chunks]
    model = MiniLM(model_folder("local:all-MiniLM-L6-v2"))
    print(f"{len(texts)} chunks of {PAPER.name}; threads {args.threads}; load average {os.getloadavg()[0]:.1f}")
    reference = model.encode_whole(texts)
    with tempfile.TemporaryDirectory() as folder:
        fp32, int8 = Path(folder) / "minilm.onnx", Path(folder) / "minilm-int8.onnx"
        build(model, fp32)
        # Only the products with a weight (the "_mm" nodes), each output channel with its own scale:
        # quantising the attention's activation products too took the cosine to 0.83.
        weighted = [n.name for n in onnx.load(str(fp32)).graph.node
                    if n.name.endswith("_mm") and not (args.keep_fp32 and re.fullmatch(args.keep_fp32, n.name))]
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=weighted)
        measure("numpy (today)", model.encode_whole, texts, args.runs, reference)
        for label, path in (("onnxruntime fp32", fp32), ("onnxruntime int8", int8)):
            options = ort.SessionOptions()
            options.intra_op_num_threads = args.threads
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            measure(label, lambda t, s=session: encode_whole(model, s, t), texts, args.runs, reference)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
