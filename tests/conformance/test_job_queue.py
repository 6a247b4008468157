"""The extraction outbox contract: idempotent jobs, debounce, leases, retries, dead letters,
exactly-once application; one suite run on every backend (SQLite file, PostgreSQL), the way
the store contract runs over every store. The PostgreSQL cases run on a throwaway cluster
(``pg_admin_url`` in tests/conftest.py): skipped with the reason where PostgreSQL is not
installed, a failure under ``CI=true``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from memagent.graph.jobs import JobQueue, JobQueueError, Outbox, Turn, backoff_s, open_queue
from memagent.graph.jobs_pg import PgJobQueue
from memagent.graph.worker import Worker
from memagent.memory.extractors import ExtractionResult
from memagent.memory.namespaces import namespace


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


BACKENDS = ["sqlite", "postgres"]
MakeQueue = Callable[..., tuple[Outbox, Clock]]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest) -> Callable[[], str | None]:
    """A fresh database per call on PostgreSQL (None on SQLite)."""
    if backend == "sqlite":
        return lambda: None
    from pg_cluster import create_database

    admin = request.getfixturevalue("pg_admin_url")
    return lambda: create_database(admin)


@pytest.fixture
def make_queue(
    backend: str, tmp_path: Path, database_url: Callable[[], str | None]
) -> Iterator[MakeQueue]:
    """``make_queue(**options) -> (queue, clock)``: a new, empty outbox on the backend."""
    made: list[Outbox] = []

    def make(**kw: Any) -> tuple[Outbox, Clock]:
        clock = kw.pop("clock", None) or Clock()
        url = database_url()
        q: Outbox
        if url is None:
            q = JobQueue(tmp_path / f"jobs{len(made)}.sqlite", clock=clock, **kw)
        else:
            q = PgJobQueue(url, clock=clock, **kw)
        made.append(q)
        return q, clock

    yield make
    for q in made:
        q.close()


def submit(q: Outbox, text: str, mid: str, thread: str = "t1", **kw: object):  # type: ignore[no-untyped-def]
    return q.submit(
        thread_id=thread,
        user_id="u1",
        customer_id="c1",
        turns=[Turn("user", text, mid)],
        **kw,  # type: ignore[arg-type]
    )


def facts(store: InMemoryStore) -> list[dict]:  # type: ignore[type-arg]
    return [i.value for i in store.search(namespace("u1", "c1", "facts"), limit=100)]


def test_same_range_twice_is_one_job(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    a = submit(q, "Our budget is $2 million.", "m1")
    q.claim()  # running: a resubmit must not create a second job for the same range
    b = submit(q, "Our budget is $2 million.", "m1")
    assert a.id == b.id
    assert sum(q.counts().values()) == 1


def test_same_job_processed_twice_gives_one_record(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    store = InMemoryStore()
    w = Worker(q, store, profile=False)
    job = submit(q, "Our budget is $2 million.", "m1")
    claimed = q.claim()
    assert claimed is not None and claimed.id == job.id
    w.process(claimed)
    w.process(claimed)  # duplicate delivery of the same job
    values = facts(store)
    assert len(values) == 1
    assert values[0]["mentions"] == 1 and values[0]["access_count"] == 0


def test_debounce_supersedes_pending_and_keeps_messages(make_queue: MakeQueue) -> None:
    q, clock = make_queue(delay_s=30.0, every_n_turns=10)
    first = submit(q, "hello", "m1")
    assert first.run_at == clock.t + 30.0
    clock.t += 5
    second = submit(q, "we talked to legal", "m2")
    assert q.get(first.id).status == "superseded"  # type: ignore[union-attr]
    assert [t.id for t in second.turns] == ["m1", "m2"]
    assert second.run_at == clock.t + 30.0
    assert q.counts()["pending"] == 1
    assert q.claim() is None  # not due yet
    clock.t += 31
    assert q.claim().id == second.id  # type: ignore[union-attr]


def test_unfinished_counts_one_accounts_due_or_running_jobs(make_queue: MakeQueue) -> None:
    q, clock = make_queue(delay_s=30.0, every_n_turns=10)
    submit(q, "hello", "m1")  # debounced: due in 30 s
    assert q.unfinished("u1", "c1", clock.t) == 0
    assert q.unfinished("u1", "c1", clock.t + 30.0) == 1
    submit(q, "budget is 2 million", "m2", urgent=True, trigger="amount")
    q.submit(thread_id="t2", user_id="u1", customer_id="c2", turns=[Turn("user", "x", "m3")],
             urgent=True)  # fmt: skip
    q.submit(thread_id="t3", user_id="u2", customer_id="c1", turns=[Turn("user", "y", "m4")],
             urgent=True)  # fmt: skip
    assert q.unfinished("u1", "c1", clock.t) == 1
    job = q.claim()
    assert job is not None and job.customer_id == "c1" and job.user_id == "u1"
    assert q.unfinished("u1", "c1", clock.t) == 1  # running
    q.complete(job)
    assert q.unfinished("u1", "c1", clock.t) == 0
    assert q.unfinished("u1", "c2", clock.t) == 1
    assert q.unfinished("u2", "c1", clock.t) == 1


def test_urgent_and_every_n_turns_trigger_now(make_queue: MakeQueue) -> None:
    q, clock = make_queue(delay_s=30.0, every_n_turns=3)
    j = submit(q, "Our budget is 2 million", "m1", urgent=True, trigger="amount")
    assert j.run_at == clock.t and "amount" in j.trigger
    q2, clock2 = make_queue(delay_s=30.0, every_n_turns=3)
    runs = [submit(q2, f"small talk {i}", f"m{i}").run_at - clock2.t for i in range(3)]
    assert runs == [30.0, 30.0, 0.0]


def test_newer_submit_does_not_postpone_urgent_job(make_queue: MakeQueue) -> None:
    q, clock = make_queue(delay_s=30.0, every_n_turns=10)
    submit(q, "budget is 2 million", "m1", urgent=True, trigger="amount")
    clock.t += 1
    j = submit(q, "ok thanks", "m2")
    assert j.run_at <= clock.t


def test_retry_backoff_then_dead_letter(make_queue: MakeQueue) -> None:
    q, clock = make_queue(max_attempts=3, backoff_base_s=2.0)
    submit(q, "x budget 1 million", "m1")
    delays = []
    for _ in range(3):
        job = q.claim()
        assert job is not None
        status = q.fail(job, "boom")
        if status == "pending":
            delays.append(q.get(job.id).run_at - clock.t)  # type: ignore[union-attr]
            assert q.claim() is None  # in backoff
            clock.t += delays[-1]
    assert delays == [2.0, 4.0]
    assert status == "dead"
    assert q.counts()["dead"] == 1
    assert [j.last_error for j in q.dead_letters()] == ["boom"]
    assert q.retry_dead() == 1 and q.counts()["pending"] == 1


def test_backoff_is_capped() -> None:
    assert backoff_s(1, 2.0, 10.0) == 2.0
    assert backoff_s(10, 2.0, 10.0) == 10.0


def test_expired_lease_is_claimed_again(make_queue: MakeQueue) -> None:
    q, clock = make_queue(lease_s=10.0)
    submit(q, "a", "m1")
    first = q.claim()
    assert first is not None and q.claim() is None
    clock.t += 11  # the worker died holding the lease
    again = q.claim()
    assert again is not None and again.id == first.id and again.attempts == 2
    assert not q.complete(first)  # the dead worker's stale token is refused
    assert q.complete(again)


def test_worker_failure_retries_then_succeeds(make_queue: MakeQueue) -> None:
    q, clock = make_queue(backoff_base_s=1.0)
    calls = {"n": 0}

    async def flaky(turns: object) -> ExtractionResult:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("model returned garbage")
        from memagent.memory.extractors import rules_extractor

        return await rules_extractor()(turns)  # type: ignore[arg-type]

    store = InMemoryStore()
    w = Worker(q, store, extractor=flaky, profile=False)
    submit(q, "Our budget is $2 million.", "m1")
    assert w.drain().failed == 1
    clock.t += 1
    rep = w.drain()
    assert rep.done == 1 and q.counts()["done"] == 1
    assert len(facts(store)) == 1


def test_delete_scope_removes_jobs_of_that_scope_only(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    submit(q, "a", "m1", thread="t1")
    q.submit(thread_id="t2", user_id="u1", customer_id="c2", turns=[Turn("user", "b", "m2")])
    q.submit(thread_id="t3", user_id="u2", customer_id="c1", turns=[Turn("user", "c", "m3")])
    assert q.delete_scope("u1", "c1") == 1
    assert q.delete_scope("u1") == 1
    assert sum(q.counts().values()) == 1


def test_bad_submit_is_rejected(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    with pytest.raises(JobQueueError):
        q.submit(thread_id="t", user_id="u", customer_id="c", turns=[Turn("user", "   ")])
    with pytest.raises(JobQueueError):
        q.submit(thread_id="", user_id="u", customer_id="c", turns=[Turn("user", "x")])


def test_lock_is_mutually_exclusive_across_threads(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    inside = []
    overlap = []

    def hold() -> None:
        with q.lock("scope"):
            inside.append(1)
            if len(inside) > 1:
                overlap.append(1)
            time.sleep(0.01)
            inside.pop()

    threads = [threading.Thread(target=hold) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not overlap


class FlakyStore(InMemoryStore):
    """A store that is down until ``up`` is set (server down, file locked)."""

    up = False

    def batch(self, ops):  # type: ignore[no-untyped-def]
        if not self.up:
            raise ConnectionError("store unavailable")
        return super().batch(ops)


def test_store_outage_keeps_job_waiting_without_spending_attempts(make_queue: MakeQueue) -> None:
    q, clock = make_queue(max_attempts=2)
    store = FlakyStore()
    w = Worker(q, store, profile=False, outage_delay_s=5.0)
    job = submit(q, "Our budget is $2 million.", "m1")
    for _ in range(4):  # more outages than max_attempts: still never dead
        assert w.drain().released == 1
        clock.t += 5
    assert q.get(job.id).status == "pending" and q.get(job.id).attempts == 0  # type: ignore[union-attr]
    store.up = True
    assert w.drain().done == 1
    assert [v["value"] for v in facts(store)] == ["2000000 USD"]


def test_two_workers_same_key_no_lost_update_no_duplicate(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    store = InMemoryStore()
    for i in range(12):
        q.submit(
            thread_id=f"t{i}",
            user_id="u1",
            customer_id="c1",
            turns=[Turn("user", f"Our budget is {i + 1} million dollars.", f"m{i}")],
        )
    workers = [Worker(q, store, profile=False) for _ in range(2)]
    threads = [threading.Thread(target=w.drain) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert q.counts()["done"] == 12
    values = facts(store)
    assert len(values) == 12 and sorted(v["version"] for v in values) == list(range(1, 13))
    assert sum(v["status"] == "active" for v in values) == 1


def test_digest_job_consolidates_working_memory(make_queue: MakeQueue) -> None:
    q, _ = make_queue()
    store = InMemoryStore()
    q.submit(
        thread_id="t1",
        user_id="u1",
        customer_id="c1",
        turns=[Turn("digest", "Preferences · language: English", "d1"),
               Turn("digest", "Open to-dos · send quote: Friday", "d2")],
    )  # fmt: skip
    assert Worker(q, store, profile=False).drain().done == 1
    assert [v["attribute"] for v in facts(store)] == ["language"]


@pytest.mark.parametrize("first_store_up", [True, False])
def test_digest_records_are_consolidated_and_turn_records_extracted(
    make_queue: MakeQueue, first_store_up: bool
) -> None:
    """A job mixing digest lines and turns writes both origins, also when a retry reuses the
    candidates saved before the store went down."""
    q, clock = make_queue()
    store = FlakyStore()
    store.up = first_store_up
    q.submit(
        thread_id="t1",
        user_id="u1",
        customer_id="c1",
        turns=[Turn("digest", "Preferences · language: English", "d1"),
               Turn("user", "Our budget is $2 million.", "m1")],
    )  # fmt: skip
    w = Worker(q, store, profile=False, outage_delay_s=1.0)
    if not first_store_up:
        assert w.drain().released == 1
        store.up = True
        clock.t += 1
    assert w.drain().done == 1
    origins = {v["attribute"]: v["source"]["origin"] for v in facts(store)}
    assert origins == {"language": "consolidation", "budget": "extraction"}


def test_queue_and_worker_take_their_thresholds_from_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: Callable[[], str | None]
) -> None:
    from memagent.core.settings import Settings

    defaults = Settings(home=tmp_path, database_url=database_url())
    q = open_queue(defaults)
    w = Worker.for_settings(defaults, queue=q, store=InMemoryStore())
    # Defaults unchanged by exposing them.
    assert (q.delay_s, q.every_n_turns, q.max_attempts) == (0.0, 4, 5)
    assert w.write_config.near_duplicate == 0.95

    monkeypatch.setenv("MEMAGENT_EXTRACT_DEBOUNCE_S", "30")
    monkeypatch.setenv("MEMAGENT_EXTRACT_EVERY_N_TURNS", "2")
    monkeypatch.setenv("MEMAGENT_EXTRACT_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("MEMAGENT_NEAR_DUPLICATE_THRESHOLD", "0.9")
    tuned = Settings(home=tmp_path / "tuned", database_url=database_url())
    q2 = open_queue(tuned, clock=lambda: 100.0)
    runs = [
        q2.submit(
            thread_id="t1", user_id="u1", customer_id="c1", turns=[Turn("user", f"hi {i}", f"m{i}")]
        ).run_at
        for i in range(2)
    ]
    assert runs == [130.0, 100.0]  # debounced, then due at once on the 2nd waiting turn
    job = q2.claim()
    assert job is not None and job.max_attempts == 1
    assert q2.fail(job, "boom") == "dead"  # one attempt only
    w2 = Worker.for_settings(tuned, queue=q2, store=InMemoryStore())
    assert w2.write_config.near_duplicate == 0.9
    q3 = open_queue(tuned, max_attempts=3)
    assert q3.max_attempts == 3  # explicit wins
    for each in (q, q2, q3):
        each.close()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("extract_every_n_turns", 0),
        ("extract_max_attempts", 0),
        ("near_duplicate_threshold", 0.0),
        ("near_duplicate_threshold", 1.5),
        ("extract_debounce_s", -1.0),
    ],
)
def test_bad_threshold_settings_are_rejected(tmp_path: Path, name: str, value: float) -> None:
    from pydantic import ValidationError

    from memagent.core.settings import Settings

    with pytest.raises(ValidationError, match=name):
        Settings(home=tmp_path, **{name: value})  # type: ignore[arg-type]


def test_message_times_survive_the_outbox_and_reach_extractor_and_episode(
    make_queue: MakeQueue,
) -> None:
    q, clock = make_queue(delay_s=30.0, every_n_turns=10)
    q.submit(thread_id="t1", user_id="u1", customer_id="c1",
             turns=[Turn("user", "hello", "m1", "2026-11-03T09:30:00+08:00")])  # fmt: skip
    q.submit(thread_id="t1", user_id="u1", customer_id="c1",
             turns=[Turn("user", "budget is 2 million", "m2", "2026-11-03T09:31:00+08:00"),
                    Turn("assistant", "noted", "m3")])  # fmt: skip
    seen: list[Turn] = []

    async def spy(turns):  # type: ignore[no-untyped-def]
        seen.extend(turns)
        return ExtractionResult()

    store = InMemoryStore()
    clock.t += 31
    Worker(q, store, extractor=spy, profile=False).drain()
    assert [t.at for t in seen[:2]] == ["2026-11-03T09:30:00+08:00", "2026-11-03T09:31:00+08:00"]
    # a turn without a message time is read at the job's time, not when the job runs
    (done,) = q.jobs("done")
    assert seen[2].at == datetime.fromtimestamp(done.created_at, UTC).isoformat()
    episode = store.get(namespace("u1", "c1", "episodes"), "t1")
    assert episode is not None
    at = [t["at"] for t in episode.value["turns"]]
    assert at[:2] == ["2026-11-03T09:30:00+08:00", "2026-11-03T09:31:00+08:00"]
    assert at[2] != ""  # no message time: the time the worker wrote it


def test_concurrent_submits_and_claims_lose_no_turn_and_share_none(make_queue: MakeQueue) -> None:
    """Producers of one session racing claimers (two outbox objects on one database, as
    two processes would be): every message ends in exactly one job that is not
    superseded, and no message is in two claimed jobs."""
    q, clock = make_queue(delay_s=0.0, every_n_turns=100)
    q2 = q if isinstance(q, JobQueue) else PgJobQueue(q.url, clock=clock)  # type: ignore[attr-defined]
    claimed: list[Any] = []
    stop = threading.Event()

    def produce(worker: int) -> None:
        for i in range(15):
            (q if i % 2 else q2).submit(
                thread_id="t1", user_id="u1", customer_id="c1",
                turns=[Turn("user", f"w{worker} turn {i}", f"w{worker}m{i}")],
            )  # fmt: skip

    def consume(queue: Outbox) -> None:
        while not stop.is_set():
            job = queue.claim()
            if job is not None:
                claimed.append(job)
                assert queue.complete(job)

    consumers = [threading.Thread(target=consume, args=(x,)) for x in (q, q2)]
    producers = [threading.Thread(target=produce, args=(w,)) for w in range(3)]
    for t in consumers + producers:
        t.start()
    for t in producers:
        t.join()
    deadline = time.monotonic() + 60
    while q.outstanding() and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    for t in consumers:
        t.join()
    if q2 is not q:
        q2.close()
    ids = [t.id for job in claimed for t in job.turns]
    assert sorted(ids) == sorted(f"w{w}m{i}" for w in range(3) for i in range(15))
    live = [j for j in q.jobs(limit=1000) if j.status != "superseded"]
    assert sorted(t.id for j in live for t in j.turns) == sorted(ids)


def test_a_submit_wakes_listeners_of_another_outbox_object(
    make_queue: MakeQueue, backend: str
) -> None:
    """Optional capability: the wake-up crosses processes (PostgreSQL LISTEN/NOTIFY).
    The SQLite outbox wakes only its own process's worker; workers elsewhere poll."""
    if backend == "sqlite":
        pytest.skip("the SQLite outbox wakes in-process listeners only (others poll)")
    q, _ = make_queue()
    other = PgJobQueue(q.url)  # type: ignore[attr-defined]
    woke = threading.Event()
    try:
        other.add_listener(woke.set)
        time.sleep(0.5)  # LISTEN is in place
        woke.clear()
        submit(q, "Our budget is $2 million.", "m1")
        assert woke.wait(5.0)
    finally:
        other.close()


def test_a_job_slower_than_its_lease_keeps_it_while_the_worker_lives(
    make_queue: MakeQueue,
) -> None:
    """The worker extends the lease while a job runs: no other worker claims it meanwhile,
    and it completes on its first attempt (before, a slow store or model let the lease
    expire, the job ran twice at once and was dead-lettered after max_attempts)."""
    q, _ = make_queue(lease_s=0.6, clock=time.time)
    stolen: list[Any] = []

    async def slow(turns: Any) -> ExtractionResult:
        deadline = time.time() + 2.0
        while time.time() < deadline:
            got = q.claim()
            if got is not None:
                stolen.append(got)
            time.sleep(0.1)
        return ExtractionResult()

    job = submit(q, "Our budget is $2 million.", "m1")
    report = Worker(q, InMemoryStore(), extractor=slow, profile=False).drain()
    assert stolen == []
    assert report.done == 1
    done = q.get(job.id)
    assert done is not None and done.status == "done" and done.attempts == 1


def test_a_sessions_jobs_apply_in_order(make_queue: MakeQueue) -> None:
    """While a session's job runs, its next job waits (two workers would otherwise apply
    turn 3 before turn 2, and the older statement would win); other sessions go on."""
    q, _ = make_queue()
    submit(q, "budget is 2 million", "m1")
    first = q.claim()
    assert first is not None
    submit(q, "budget is 3 million", "m2")
    submit(q, "hello", "x1", thread="t2")
    other = q.claim()
    assert other is not None and other.thread_id == "t2"
    assert q.claim() is None  # t1's second job waits for its first
    assert q.complete(first)
    second = q.claim()
    assert second is not None and second.thread_id == "t1" and second.first_id == "m2"
