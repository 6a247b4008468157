"""A text that restates a memory under another label (``write_match.restates``): the
write path's step beside the near-duplicate check.

"许振华: 要求"一个平台管到底"" from the rules and "客户偏好：- 许振华：要求"一个平台管到底"，
不要多家拼凑" from the profile are one fact. The shorter one merges into the memory; a
longer one becomes the memory's next version (its key kept, the old words in its
history), so nothing said is lost and one memory is left. A retry finds its own words
active and merges as an exact duplicate.
"""

from __future__ import annotations

from datetime import datetime

from langgraph.store.base import Item

from memagent.memory.records import MemoryRecord
from memagent.memory.write_cas import _close_superseded, _record, _Writes
from memagent.memory.write_match import merge_confidence
from memagent.memory.write_person_store import Merge
from memagent.memory.write_types import Candidate, WriteConfig, WriteResult


def restated(
    w: _Writes,
    ns: tuple[str, ...],
    item: Item,
    cand: Candidate,
    rec: MemoryRecord,
    now: datetime,
    rid: str,
    cfg: WriteConfig,
    merge: Merge,
) -> WriteResult:
    """A text that restates a memory: a merge, and when it says more, the memory's next
    version carries its words (the old words stay in its history)."""
    old = _record(item)
    if len(rec.content) <= len(old.content):  # (a retry is an exact duplicate by now)
        return merge(w, ns, item, cand, now, cfg)
    ids = old.source.message_ids + [m for m in rec.source.message_ids
                                    if m not in old.source.message_ids]  # fmt: skip
    nxt = old.model_copy(
        update={
            "content": rec.content,
            "version": old.version + 1,
            "supersedes": item.key,
            "source": old.source.model_copy(update={"message_ids": ids[-200:], "at": now}),
            "mentions": old.mentions + 1,
            "confidence": merge_confidence(
                old.confidence, cand.confidence, cfg.merge_confidence_gain
            ),  # fmt: skip
            "importance": max(old.importance, rec.importance),
            "valid_from": now,
            "created_at": now,
            "last_accessed_at": now,
        }
    )
    nxt = MemoryRecord.model_validate(nxt.model_dump())
    new_id = w.next_id(ns, item.key, rid)
    w.insert(ns, new_id, nxt.to_store())
    _close_superseded(w, ns, item, now)
    return WriteResult(True, new_id, nxt.content, "restates an existing memory", "merged",
                       superseded=item.key)  # fmt: skip
