"""The settings model: every knob, its default, and its ``MEMAGENT_`` variable.

Only the model (and the one-line error naming a bad variable) lives here. The
environment is read once, by the composition root (``memagent.graph.settings``);
everything below receives a ``Settings`` object (or a field of it) and never reads
the environment itself. Every field is listed, with its default and one line, in
``.env.example`` and in the README's table (a unit test keeps the three in sync).
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "MEMAGENT_"
_SECRETS = frozenset({"api_key", "qdrant_api_key"})


class SettingsError(ValueError):
    """One or more invalid settings; ``problems`` has one line per variable."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def env_name(field: str) -> str:
    """The environment variable of a settings field (``recall`` -> ``MEMAGENT_RECALL``)."""
    return f"{ENV_PREFIX}{field.upper()}"


def _message(msg: str) -> str:
    return msg.removeprefix("Value error, ")


def unknown_variables(environ: dict[str, str]) -> list[str]:
    """``MEMAGENT_*`` variables that are no setting (a typo is otherwise silently ignored)."""
    known = {env_name(f) for f in Settings.model_fields}
    return sorted(k for k in environ if k.upper().startswith(ENV_PREFIX) and k.upper() not in known)


def describe_errors(exc: ValidationError) -> tuple[list[str], set[str]]:
    """One line per invalid variable, and the names of the fields at fault."""
    lines: list[str] = []
    fields: set[str] = set()
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else ""
        fields.add(field)
        value = "" if field in _SECRETS else f"={str(err.get('input', ''))[:60]!r}"
        name = env_name(field) if field else "settings"
        lines.append(f"invalid setting {name}{value}: {_message(err['msg'])}")
    return lines, fields


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("memagent", appauthor=False))


def _default_model_dir() -> Path:
    return Path(platformdirs.user_cache_dir("memagent", appauthor=False)) / "models"


class Settings(BaseSettings):
    """Every knob of memagent, with its default for the embedded, offline setup."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_file=".env", extra="ignore", frozen=True
    )

    home: Path = Field(default_factory=_default_home, description="Data directory.")

    # LLM: with no base_url the embedded llama.cpp server is started on demand.
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint; empty = local.")
    api_key: SecretStr = Field(SecretStr("not-needed"), description="Key for base_url.")
    model: str = Field("qwen2.5-coder-1.5b-instruct", description="Main chat model.")
    small_model: str | None = Field(None, description="Rewrite/summary/extraction model.")
    context_window: int = Field(8192, ge=1024, description="Model context window (tokens).")
    reply_tokens: int = Field(512, ge=16, description="Max tokens of one reply.")
    temperature: float = Field(0.2, ge=0.0, le=2.0)
    today: date | None = Field(
        None,
        description="The date the assistant is told it is (YYYY-MM-DD; empty = the clock): "
        "replays evaluations and benches at a fixed date.",
    )
    gguf_path: Path | None = Field(None, description="Any GGUF to serve instead of the bundle.")
    model_dir: Path = Field(
        default_factory=_default_model_dir,
        description="Where the bundled model is assembled once per machine, for every home "
        "(default: the user cache dir, ~/.cache/memagent/models).",
    )
    llm_port: int | None = Field(
        None, ge=1, le=65535, description="Port of the local server (free if unset)."
    )
    llm_threads: int = Field(
        default_factory=lambda: max(1, (os.cpu_count() or 2) - 1),
        ge=1,
        description="Threads of the local llama.cpp server (default: all cores but one).",
    )
    llm_timeout: float = Field(120.0, gt=0, description="Seconds per model call.")
    llm_prestart: bool = Field(
        True,
        description="Start the local model server before the first turn needs it: when Studio "
        "loads the graph and when `memagent chat` opens, so the first reply waits only for its "
        "prompt (off: on the first turn).",
    )
    prefix_reuse: bool = Field(
        True,
        description="Run background model calls (router, summary, extraction, rewriting) on "
        "their own local server, so they never evict the chat's evaluated prompt prefix and "
        "the chat server re-reads only the end of each prompt; off: one server for every call.",
    )

    # Store.
    qdrant_url: str | None = Field(None, description="Qdrant server URL; empty = embedded.")
    qdrant_api_key: SecretStr | None = None
    qdrant_timeout_s: float = Field(
        10.0, gt=0, description="Seconds one request to the Qdrant server may take."
    )
    qdrant_retries: int = Field(
        3,
        ge=1,
        le=10,
        description="Attempts of one Qdrant call on a connection error (reads also on a "
        "timeout), with backoff; then the store is down for 10 s: recall degrades, "
        "extraction jobs wait.",
    )
    store_location: str | None = Field(None, description="Embedded store dir (default: home).")
    store_shared: bool = Field(
        False,
        description="Let several processes on this host open the embedded store (each "
        "operation takes the directory lock and reloads the shard: ~50 ms each).",
    )
    embedder: Literal["e5", "minilm", "openai", "hash"] = "e5"
    embeddings_url: str | None = Field(None, description="OpenAI-compatible embeddings URL.")
    embeddings_model: str = "text-embedding-3-small"

    # Pluggable nodes.
    rewriter: Literal["llm", "rules", "off"] = "rules"
    note_reply: Literal["rules", "model"] = Field(
        "rules",
        description="A message that only tells facts (no question, no request) is answered "
        "with the facts the rules read in it, without a model call (rules), or by the model.",
    )
    brief_reply: Literal["rules", "model"] = Field(
        "rules",
        description="A broad question about the account ('brief me before the call', "
        "'介绍一下这个客户') is answered with the recalled facts, and a question only about "
        "the budget, who decides, who holds a role or how to contact someone with the "
        "recalled facts of that kind, without a model call (rules), or by the model.",
    )
    recall: Literal["hybrid", "dense", "keyword", "off"] = "hybrid"
    recall_feedback_weight: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="Weight of recall's feedback-expansion keyword search (0 turns it off; "
        "memagent.nodes.recall_expand).",
    )
    recall_entity_focus: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Relevance factor for memories about another entity when the query "
        "names one (1 turns the focus off).",
    )
    recall_names_out: bool = Field(
        True,
        description="Search without the names of the entities a query names, which the "
        "entity focus handles (memagent.nodes.recall_expand.without_names).",
    )
    extractor: Literal["llm", "rules", "off"] = "rules"
    llm_extraction: Literal["hybrid", "full"] = Field(
        "hybrid",
        description="With the llm extractor: hybrid keeps the rules' facts and sends the "
        "model only the clauses they did not read, to sort by category (fast, precise); "
        "full sends the model the whole note to extract every fact.",
    )
    summarizer: Literal["llm", "rules"] = Field(
        "rules", description="Running summary by the small model or by rules only."
    )

    # Sessions, jobs and the CRM: SQLite files under home, or one PostgreSQL database.
    database_url: SecretStr | None = Field(
        None,
        description="postgresql:// URL: sessions (checkpointer), the job outbox and the CRM "
        "move to this PostgreSQL database together; empty = SQLite files under home.",
    )

    # Background jobs.
    worker: Literal["inprocess", "external"] = "inprocess"
    extract_debounce_s: float = Field(
        0.0,
        ge=0.0,
        description="Seconds a thread's extraction job waits for the next turn, which replaces "
        "it (fewer model calls); 0 extracts after every turn.",
    )
    extraction_mode: Literal["auto", "server", "local"] = Field(
        "auto",
        description="Where turns go for extraction: auto sends the turns of runs a LangGraph "
        "server executes (langgraph dev/up) to its memory_extractor graph and the rest to the "
        "local outbox; server or local forces one.",
    )
    extract_every_n_turns: int = Field(
        4,
        ge=1,
        description="Extract now, whatever the debounce, once this many turns wait unextracted.",
    )
    extract_max_attempts: int = Field(
        5,
        ge=1,
        description="Attempts of one extraction job before it is dead-lettered (outages of the "
        "store do not count).",
    )
    extract_lease_s: float = Field(
        60.0,
        gt=0,
        description="Seconds a worker holds a job; a worker killed mid-job gives it back to "
        "the others after this.",
    )

    # Long-term memory writes.
    near_duplicate_threshold: float = Field(
        0.95,
        gt=0.0,
        le=1.0,
        description="Cosine similarity above which a new memory is merged into an existing one "
        "(lower merges more paraphrases, and risks merging distinct facts).",
    )

    poison_model: bool = Field(
        True,
        description="Screen memories with the learned injection classifier as well as the "
        "rules (off: rules only, no e5 call per write).",
    )

    # Session memory.
    working_memory_ttl_s: float = Field(3600.0, gt=0)

    # The per-home service the CLI talks to (memagent.graph.service).
    service: Literal["auto", "off"] = Field(
        "auto",
        description="CLI commands go through one local service per home, started on demand "
        "(auto), or open the store, sessions and jobs in their own process (off: tests, "
        "debugging; one process at a time on the embedded store).",
    )
    service_idle_s: float = Field(
        300.0,
        gt=0,
        description="Seconds without a request, a turn or a due job after which the service "
        "stops (the next command starts it again).",
    )

    @field_validator("base_url", "qdrant_url", "embeddings_url", mode="before")
    @classmethod
    def _url(cls, value: object) -> object:
        """Empty means unset; anything else must be an http(s) URL (a typo would otherwise
        be taken for a directory, or fail on the first request)."""
        if isinstance(value, str):
            value = value.strip()
            if not value:
                return None
            if not value.startswith(("http://", "https://")):
                raise ValueError("must be an http:// or https:// URL (or empty)")
        return value

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value: object) -> object:
        """Empty means unset (SQLite under home); anything else must be a PostgreSQL URL."""
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(raw, str):
            raw = raw.strip()
            if not raw:
                return None
            if not raw.startswith(("postgresql://", "postgres://")):
                raise ValueError("must be a postgresql:// URL (or empty)")
            return raw
        return value

    @property
    def database_dsn(self) -> str | None:
        """The PostgreSQL URL when sessions, jobs and the CRM live there, else None."""
        return self.database_url.get_secret_value() if self.database_url else None

    @field_validator("store_location", "gguf_path", mode="before")
    @classmethod
    def _optional_path(cls, value: object) -> object:
        """Empty means unset; ``~`` is the user's home, as in a shell."""
        if isinstance(value, str | Path):
            text = str(value).strip()
            return str(Path(text).expanduser()) if text else None
        return value

    @field_validator("home", mode="before")
    @classmethod
    def _home(cls, value: object) -> object:
        if isinstance(value, str | Path):
            text = str(value).strip()
            return Path(text).expanduser() if text else _default_home()
        return value

    @field_validator("home", "store_location", "model_dir")
    @classmethod
    def _not_a_file(cls, value: object) -> object:
        """A data directory that is a file would fail later, naming a file inside it."""
        if value is not None and Path(str(value)).is_file():
            raise ValueError("is a file, not a directory")
        return value

    def resolved_store_location(self) -> str:
        """Where the long-term store lives: a URL, or a directory under home."""
        if self.qdrant_url:
            return self.qdrant_url
        return self.store_location or str(self.home / "store")

    @property
    def checkpoint_path(self) -> Path:
        return self.home / "sessions.sqlite"

    @property
    def jobs_path(self) -> Path:
        return self.home / "jobs.sqlite"

    @property
    def crm_path(self) -> Path:
        return self.home / "crm.sqlite"

    @property
    def crm_location(self) -> str | Path:
        """The CRM: the PostgreSQL URL when there is one, else the SQLite file."""
        return self.database_dsn or self.crm_path


def default_settings() -> Settings:
    """The documented defaults, without reading the environment or ``.env``: for a library
    caller or a test that passes no settings (the composition root always passes its own)."""
    return Settings.model_construct()
