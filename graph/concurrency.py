"""The concurrency story: which lock or compare-and-set protects which invariant.

One place for what is otherwise spread over seven mechanisms. Each line says what
is protected, against whom (threads of one process, processes on one machine, hosts),
and what still holds when the mechanism is absent. Nothing here runs: the code lives
where the line points.

Compare-and-set (correctness; no lock is needed for these invariants)
- Long-term records: the write path's optimistic writes
  (``stores.write_cas._Writes``) over ``get_rev``/``put_if`` of a store implementing
  ``stores.protocols.MemoryStoreExtensions``. A record read earlier is replaced only
  if it is still what was read; a new record goes to an id derived from what it
  follows, inserted only if absent, so two writers of one key collide on one id and
  the loser re-reads. Holds across processes and across hosts sharing one Qdrant
  server (the engine decides each conditional upsert per point).
- Access stats (``touch``): each item's value update is conditioned on the write
  token it read, re-read and retried otherwise, so a touch never undoes a put from
  another process.
- Working memory (``State.working``): ``reduce_working`` keeps the newer ``version``,
  so a stale writer (a second agent or process on one checkpoint file) cannot undo
  slots.
- Job rows (``stores.jobs``): a claim is one ``BEGIN IMMEDIATE`` transaction that
  leases a row with a fresh ``lease_token``; ``complete``/``fail``/``release`` only
  act on the row while that token is still theirs. A worker killed mid-job loses the
  lease when it expires and the job is claimed again (at-least-once; exactly-once
  effect comes from record ids derived from the job id). On PostgreSQL
  (``graph.jobs_pg``) the claim is ``FOR UPDATE SKIP LOCKED`` on the oldest due row and
  a submit locks its session's pending rows ``FOR UPDATE`` under a per-session advisory
  lock, so a job is either superseded or claimed, never both, across hosts.

Locks (each protects something compare-and-set does not cover)
- ``JobQueue.lock(name)`` (a row in the queue's ``locks`` table; threads and
  processes sharing one jobs database, expires after its TTL): the worker holds the
  scope lock ``user/customer/facts`` for a whole job. With compare-and-set it only
  avoids conflicts and retries (the two-process test passes without it); for a store
  without the extensions (``InMemoryStore``, a Postgres store) it is the only guard
  of the write path's read-check-write. Kept for that reason. On PostgreSQL it is a
  session-level advisory lock, dropped by the server when its holder's connection dies.
- Turn locks across hosts (``graph.pg_sessions.PgTurnLocks``, with
  ``MEMAGENT_DATABASE_URL``): an advisory lock per session held by a connection of its
  own pool, so agents on several hosts take a session's turns one at a time; without
  the URL ``graph.turn_lock`` (an ``flock`` under home) does this on one host.
- ``stores.write_cas.local_lock(name)`` (process-local, one ``threading.Lock`` per
  name): the default scope lock when no queue lock is given, and the guard of
  ``write_episode``'s read-merge-write of a session transcript and of
  ``touch_records``' fallback for stores without ``touch``. Not across processes:
  two worker processes appending to one transcript at the same moment can lose one
  side's turns from the transcript (an audit copy; the facts go through the write
  path above). Left as is and noted here.
- ``nodes.working_memory.session_lock(thread_id)`` (an ``asyncio.Lock`` per thread id
  and event loop): one turn of a session at a time through one agent, so a second
  turn reads the checkpoint the first wrote (no interleaved history). Not across
  loops or processes; there the later checkpoint wins and ``reduce_working`` still
  keeps working memory from going back a version.
- ``QdrantStore._write_lock`` (``threading.RLock`` per store object): serialises the
  store's own writes in one process: the read of ``created_at`` before a put, the
  namespace index set, TTL sweeps and ``touch``. Not redundant with compare-and-set:
  qdrant-client's local mode is not thread-safe (without the lock a concurrent touch
  and put fail in its SQLite persistence or lose the put;
  ``tests/conformance/test_store_cas.py::test_touch_never_undoes_a_concurrent_put``).
  Lock order, everywhere: the engine's ``session()`` first, then this lock (a touch or
  sweep that took them the other way round deadlocked against a put on qdrant-client).
- The engine's directory ``flock`` (``stores.engine_edge``): one process owns an
  embedded store directory, or, opened ``shared``, each ``session()`` holds it for
  one load-run-flush; a second process gets a clear error or waits, never a torn
  shard. A unit of work holds one session (``stores.protocols.store_session``: an
  extraction job's writes, a turn's recall, a round of access-stat touches), taken
  inside the job's scope lock (``Outbox.lock``), never around it, so no process waits
  for a scope lock while the others wait for the store.
- The worker's ``_process_lock`` (``graph.worker``): one job at a time per worker
  object when it opens its own store from a factory, so a job never runs on a store
  that another thread of the same worker is closing after an outage.
- The LLM server lock (``graph.llm_server.server_lock``, an ``flock`` on
  ``server.lock`` in the model directory): one process checks, starts or stops the
  local llama.cpp server at a time, so two agents never start two servers on one
  state file; ``_servers_lock`` guards the process's own table of servers.

SQLite's own locks on the home's files (``jobs.sqlite``, ``sessions.sqlite``): every
connection waits up to ``stores.sqlite_wal.BUSY_TIMEOUT_S`` (30 s) for another process's
lock, and writes that read first take the lock up front (``BEGIN IMMEDIATE``), since
SQLite fails a read-to-write upgrade at once instead of waiting. The same holds for the
switch of a fresh file to WAL, so ``stores.sqlite_wal.enable_wal`` retries it itself
(two processes starting on a fresh home at once; a bare pragma failed one of them).

Smaller locks inside one object (the BM25 index cache, the embedder's C engine, the
poison model, the log-redaction filter) guard only that object's state between
threads and are documented where they are defined.
"""
