"""One local service per home: the owner of the store, sessions, jobs and worker.

The embedded Qdrant shard, the SQLite checkpointer and the job queue used to be opened
by every ``memagent`` process, so one idle ``chat`` locked every other command out of
the store, and two turns of one session in two processes overwrote each other. Now one
process per ``MEMAGENT_HOME`` owns them all (the in-process worker and the local model
server included) and the CLI commands that touch them are thin clients:

- ``paths``: where a home's socket, locks and log live (a per-user runtime dir, never
  inside the home, which may be read-only);
- ``protocol``: JSON lines over a Unix socket, and the settings fingerprint;
- ``client``: connect, start the service on demand (exactly one per home, a lock),
  send one request, read its events; imports no LangGraph, Qdrant or embedder;
- ``server``: the asyncio service: one request per connection, turns streamed and
  cancelled when their client goes away, idle timeout, clean stop;
- ``resources`` and ``ops``: what a request runs, shared with the in-process mode
  (``MEMAGENT_SERVICE=off``) so both paths run the same code;
- ``errors``: what a failed request tells the client (one line, an exit code, whether
  a turn's message is kept), the same on both paths;
- ``backend``: the CLI's one entry point, choosing the service or the in-process mode.

Turns of one session run one at a time on the agent's event loop (``session_lock``) and,
for processes outside the service, across processes (``memagent.graph.turn_lock``).

Library users (``open_agent``/``aopen_agent``, notebooks) and Studio keep opening
everything in their own process.
"""
