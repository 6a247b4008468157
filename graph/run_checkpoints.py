"""The SQLite checkpointer, able to delete the checkpoints of given runs.

A LangGraph server rolls a run back (``multitask_strategy="rollback"``, which the
debounced ``memory_extractor`` runs use) by deleting the run and its checkpoints with
the checkpointer's ``adelete_for_runs``. ``AsyncSqliteSaver`` does not implement it, and
the server then answers the run's creation with a 500 and fails the rolled-back run.

A run's checkpoints carry its ``run_id`` in their metadata (the server puts it in every
run's config metadata, which LangGraph copies into each checkpoint); the writes of those
checkpoints go with them. The query uses the saver's own metadata filter (json_extract),
on the tables this saver class creates.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

_RUN = "json_extract(CAST(metadata AS TEXT), '$.run_id')"


class RunScopedSqliteSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` plus ``adelete_for_runs`` (rollback on a LangGraph server)."""

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        ids = [str(r) for r in run_ids]
        if not ids:
            return
        await self.setup()
        marks = ",".join("?" * len(ids))
        async with self.lock, self.conn.cursor() as cur:
            await cur.execute(
                "DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN "
                "(SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints "
                f"WHERE {_RUN} IN ({marks}))",
                ids,
            )
            await cur.execute(f"DELETE FROM checkpoints WHERE {_RUN} IN ({marks})", ids)
            await self.conn.commit()
