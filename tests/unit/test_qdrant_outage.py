"""Qdrant by URL when the server misbehaves, without a Qdrant server: a port that refuses,
a TCP server on 127.0.0.1 that accepts and never answers or hangs up, and the real local
engine behind a flaky or racing client. Checks retries with backoff, the fail-fast cool-down,
a store that opens degraded and sets itself up once the server is back, extraction jobs
that wait instead of dying, and setup by many processes at once."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from qdrant_client import QdrantClient

from memagent.graph.jobs import JobQueue
from memagent.graph.worker import Worker
from memagent.stores.embeddings import hash_embeddings
from memagent.stores.engine_client import ClientEngine, _Serialised
from memagent.stores.engine_retry import Retrying, RetryPolicy, StoreUnavailableError, failure_kind
from memagent.stores.qdrant_store import QdrantStore

FAST = RetryPolicy(attempts=3, base_s=0.01, cap_s=0.02, cooldown_s=60.0)
INDEX: Any = {"dims": 8, "embed": hash_embeddings(8), "fields": ["content"]}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def tcp_server(mode: str) -> Iterator[tuple[str, list[int]]]:
    """A TCP server on 127.0.0.1 that ``hang``s (accepts, never answers) or ``hangup``s
    (accepts and closes); yields its URL and a one-item list counting connections."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.1)
    count, held, stop = [0], [], threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            count[0] += 1
            if mode == "hangup":
                conn.close()
            else:
                held.append(conn)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}", count
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        srv.close()


def test_failures_are_classified_by_whether_the_server_saw_the_request() -> None:
    from qdrant_client.http.exceptions import ResponseHandlingException

    assert failure_kind(ResponseHandlingException(httpx.ConnectError("refused"))) == "connect"
    assert failure_kind(ResponseHandlingException(httpx.ReadTimeout("slow"))) == "after_send"
    assert failure_kind(ValueError("Wrong input: bad filter")) is None
    assert issubclass(StoreUnavailableError, ConnectionError)  # the worker's "outage"


def test_a_refused_connection_is_retried_with_backoff_then_fails_fast() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    slept: list[float] = []
    client = Retrying(QdrantClient(url=url, timeout=1, check_compatibility=False), where=url,
                      policy=FAST, sleep=slept.append)  # fmt: skip
    with pytest.raises(StoreUnavailableError, match="after 3 attempt") as err:
        client.upsert("memagent", points=[])  # a write: retried too, never sent
    assert "ConnectError" in str(err.value) and url in str(err.value)
    assert len(slept) == 2 and slept[0] < slept[1]
    assert client.down
    with pytest.raises(StoreUnavailableError, match="next try in"):
        client.collection_exists("memagent")
    assert len(slept) == 2  # no new attempt during the cool-down


def test_a_hung_server_times_out_reads_are_retried_and_writes_are_not() -> None:
    policy = RetryPolicy(attempts=2, base_s=0.01, cooldown_s=0.0)
    with tcp_server("hang") as (url, conns):
        client = Retrying(QdrantClient(url=url, timeout=1, check_compatibility=False),
                          where=url, policy=policy)  # fmt: skip
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="after 2 attempt"):
            client.collection_exists("memagent")
        print(f"\nhung server: a read gave up after {time.monotonic() - started:.1f} s")
        assert conns[0] == 2
        with pytest.raises(StoreUnavailableError, match="after 1 attempt"):
            client.create_collection("memagent", vectors_config={})
        assert conns[0] == 3  # the write was sent once: it may have been applied


def test_a_server_that_hangs_up_is_an_outage_not_a_bad_request() -> None:
    with tcp_server("hangup") as (url, conns):
        client = Retrying(QdrantClient(url=url, timeout=1, check_compatibility=False),
                          where=url, policy=FAST, sleep=lambda s: None)  # fmt: skip
        with pytest.raises(StoreUnavailableError):
            client.count("memagent")
        assert conns[0] == 3


def test_a_store_opens_degraded_when_the_server_is_down() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    with QdrantStore.from_location(url, index=INDEX, retry=FAST, timeout_s=1) as store:
        assert store.engine.down  # type: ignore[attr-defined]
        with pytest.raises(StoreUnavailableError):
            store.search(("memagent", "u", "c", "facts"), query="budget")
        with pytest.raises(StoreUnavailableError):
            store.put(("memagent", "u", "c", "facts"), "k", {"content": "x"})
    print(f"\nopen + 2 calls against a refusing port: {time.monotonic() - started:.2f} s")


class Flaky:
    """The real local engine behind a link that is down until ``heal()``."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.broken = inner, True

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.broken:
                raise httpx.ConnectError("[Errno 111] Connection refused")
            return fn(*args, **kwargs)

        return call


def test_the_store_sets_itself_up_on_the_first_call_after_the_server_is_back() -> None:
    now = [0.0]
    flaky = Flaky(_Serialised(QdrantClient(location=":memory:"), threading.RLock()))
    link = Retrying(flaky, where="http://qdrant:6333", policy=FAST, sleep=lambda s: None,
                    clock=lambda: now[0])  # fmt: skip
    engine = ClientEngine("http://qdrant:6333", 8, client=link)
    store = QdrantStore(engine, index=INDEX)
    store.setup(defer_outage=True)
    ns = ("memagent", "u", "c", "facts")
    with pytest.raises(StoreUnavailableError):
        store.put(ns, "k1", {"content": "budget is 3 million"})
    flaky.broken = False
    with pytest.raises(StoreUnavailableError, match="next try in"):  # still cooling down
        store.get(ns, "k1")
    now[0] += FAST.cooldown_s + 1
    store.put(ns, "k1", {"content": "budget is 3 million"})
    item = store.get(ns, "k1")
    assert item is not None and item.value["content"] == "budget is 3 million"
    assert store.search(ns, query="budget")[0].key == "k1"
    assert flaky.inner.collection_exists("memagent")


def test_extraction_jobs_wait_while_the_store_is_unreachable(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    now = [1_790_000_000.0]
    queue = JobQueue(tmp_path / "jobs.sqlite", max_attempts=2, clock=lambda: now[0])
    queue.submit(thread_id="s1", user_id="u", customer_id="c", urgent=True,
                 turns=_turns())  # fmt: skip

    @contextlib.contextmanager
    def open_store() -> Iterator[QdrantStore]:
        with QdrantStore.from_location(url, index=INDEX, retry=FAST, timeout_s=1) as s:
            yield s

    worker = Worker(queue, store_factory=open_store, outage_delay_s=5.0, profile=False)
    for _ in range(5):  # more rounds than max_attempts
        report = worker.drain()
        assert report.released == 1 and report.failed == 0, report
        now[0] += 10  # past the outage delay: due again
    (job,) = queue.jobs()
    assert job.status == "pending" and job.attempts == 0, job
    assert "unreachable" in (job.last_error or "")


def _turns() -> list[Any]:
    from memagent.core.types import Turn

    return [Turn(role="user", content="Our budget is $3 million for 200 seats.", id="h1")]


class Racing:
    """A client whose first ``collection_exists`` and ``retrieve`` in each thread wait
    until every thread has asked: all see "not there yet" and all try to create it."""

    def __init__(self, inner: Any, barrier: threading.Barrier, armed: threading.Event) -> None:
        self.inner, self.barrier, self.armed = inner, barrier, armed
        self.local = threading.local()

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.inner, name)
        if name not in ("collection_exists", "retrieve"):
            return fn

        def call(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if self.armed.is_set() and not getattr(self.local, name, False):
                setattr(self.local, name, True)
                self.barrier.wait(timeout=30)
            return result

        return call


def _race(shared: Any, dims: list[int]) -> list[Any]:
    barrier, armed = threading.Barrier(len(dims)), threading.Event()
    armed.set()
    out: list[Any] = [None] * len(dims)

    def one(i: int) -> None:
        try:
            link = Racing(shared, barrier, armed)
            engine = ClientEngine("http://qdrant:6333", dims[i], client=link)
            index = {"dims": dims[i], "embed": hash_embeddings(dims[i]), "fields": ["content"]}
            store = QdrantStore(engine, index=index)
            store.setup()
            out[i] = store
        except Exception as exc:  # noqa: BLE001  (collected and asserted on)
            out[i] = exc
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.abort()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(dims))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    armed.clear()  # the race is over: later calls pass straight through
    return out


def test_many_processes_set_up_one_collection_at_once() -> None:
    shared = _Serialised(QdrantClient(location=":memory:"), threading.RLock())
    stores = _race(shared, [8] * 6)
    assert all(isinstance(s, QdrantStore) for s in stores), stores
    ns = ("memagent", "u", "c", "facts")
    stores[0].put(ns, "k", {"content": "budget is 3 million"})
    assert stores[5].get(ns, "k") is not None  # one collection, shared
    metas = shared.scroll("memagent", limit=100)[0]
    assert sum(1 for p in metas if (p.payload or {}).get("meta") == "store") == 1


def test_a_process_with_another_vector_size_loses_the_race_loudly() -> None:
    shared = _Serialised(QdrantClient(location=":memory:"), threading.RLock())
    first = _race(shared, [8])
    assert isinstance(first[0], QdrantStore)
    (late,) = _race(shared, [16])
    assert isinstance(late, ValueError) and "size" in str(late), late
